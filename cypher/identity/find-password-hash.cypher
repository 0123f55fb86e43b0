MATCH (u:User {uid: $uid})
RETURN u.password_hash AS password_hash, u.is_managed AS is_managed
