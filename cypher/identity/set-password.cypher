MATCH (u:User {uid: $uid})
SET u.password_hash = $password_hash
RETURN u.uid AS uid
