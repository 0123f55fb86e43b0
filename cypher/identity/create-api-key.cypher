MATCH (u:User {uid: $uid})
CREATE (u)-[:OWNS_KEY]->(k:ApiKey {
  key_id: $key_id, hash: $hash, prefix: $prefix, label: $label, scopes_cap: $scopes_cap,
  created_at: datetime($now), expires_at: CASE WHEN $expires_at IS NULL THEN null ELSE datetime($expires_at) END,
  last_used_at: null, revoked_at: null
})
RETURN k {.key_id, .label, .scopes_cap, .expires_at} AS key
