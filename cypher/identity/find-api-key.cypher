MATCH (owner:User)-[:OWNS_KEY]->(k:ApiKey {key_id: $key_id})
RETURN k {.key_id, .hash, .scopes_cap, .expires_at, .revoked_at, .last_used_at} AS key,
       owner {.uid, .user_tag, .is_managed, .scopes, .has_api_access} AS user
