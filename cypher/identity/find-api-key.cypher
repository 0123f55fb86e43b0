// An API key and its owner. A managed owner holds only what one of its managers holds now, and has
// API access only while one of them has (security finding #4): restricting a manager restricts its
// bots' keys at once.
MATCH (owner:User)-[:OWNS_KEY]->(k:ApiKey {key_id: $key_id})
WITH k, owner,
     CASE WHEN coalesce(owner.is_managed, false)
          THEN COLLECT { MATCH (m:User)-[:MANAGES]->(owner) RETURN m {.scopes, .has_api_access} } END AS managers
RETURN k {.key_id, .hash, .scopes_cap, .expires_at, .revoked_at, .last_used_at} AS key,
       owner {.uid, .user_tag, .is_managed,
          scopes: CASE WHEN managers IS NULL THEN owner.scopes
                       ELSE [scope IN owner.scopes WHERE any(m IN managers WHERE scope IN m.scopes)] END,
          has_api_access: CASE WHEN managers IS NULL THEN owner.has_api_access
                               ELSE owner.has_api_access AND any(m IN managers WHERE m.has_api_access) END} AS user
