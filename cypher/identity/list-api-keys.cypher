MATCH (:User {uid: $uid})-[:OWNS_KEY]->(k:ApiKey)
RETURN k {.key_id, .label, .prefix, .scopes_cap, .created_at, .expires_at, .last_used_at, .revoked_at} AS key
ORDER BY k.created_at DESC
