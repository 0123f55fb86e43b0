UNWIND $uids AS wanted
MATCH (u:User {uid: wanted})
RETURN u {.*} AS user
