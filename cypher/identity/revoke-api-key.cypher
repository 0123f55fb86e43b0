// Revokes a key of the caller; sessions minted from it fail at once because the session lookup
// checks the key's state.
MATCH (:User {uid: $uid})-[:OWNS_KEY]->(k:ApiKey {key_id: $key_id})
SET k.revoked_at = coalesce(k.revoked_at, datetime($now))
RETURN k.key_id AS key_id
