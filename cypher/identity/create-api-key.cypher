// A new API key of a user. A key made with another of the user's keys (an x-api-key request, or a
// session exchanged from a key) names it as $parent_key_id and points to it (MINTED_WITH): it dies
// when that key is revoked ({{lineage_revoked_at}} in every credential read), and the use case has
// already capped its expiry at that key's (docs/decisions/024). No row when the parent is not the
// user's key, so no key is made.
MATCH (u:User {uid: $uid})
OPTIONAL MATCH (u)-[:OWNS_KEY]->(parent:ApiKey {key_id: $parent_key_id})
WITH u, parent
WHERE $parent_key_id IS NULL OR parent IS NOT NULL
CREATE (u)-[:OWNS_KEY]->(k:ApiKey {
  key_id: $key_id, hash: $hash, prefix: $prefix, label: $label, scopes_cap: $scopes_cap,
  created_at: datetime($now), expires_at: CASE WHEN $expires_at IS NULL THEN null ELSE datetime($expires_at) END,
  last_used_at: null, revoked_at: null, parent_key_id: $parent_key_id
})
FOREACH (_ IN CASE WHEN parent IS NULL THEN [] ELSE [1] END | CREATE (k)-[:MINTED_WITH]->(parent))
RETURN k {.key_id, .label, .scopes_cap, .expires_at} AS key
