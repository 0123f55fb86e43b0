// Sets a password hash; the grant comes back so a password change can sign in within the same transaction.
MATCH (u:User {uid: $uid})
SET u.password_hash = $password_hash
RETURN u.uid AS uid, u.scopes AS scopes
