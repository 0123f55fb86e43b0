MATCH (u:User {uid: $uid})
RETURN u {.*} AS user
