// A new session for a user, optionally tied to the API key it was minted from, and, for a delegated
// session, to the manager's session or key that minted it (it dies with that credential). `method`
// says how it was made (GET /v1/auth/sessions shows it); minting counts as its first use.
MATCH (u:User {uid: $uid})
OPTIONAL MATCH (k:ApiKey {key_id: $key_id})
OPTIONAL MATCH (parentSession:Session {id: $parent_session_id})
OPTIONAL MATCH (parentKey:ApiKey {key_id: $parent_key_id})
CREATE (s:Session {
  id: $session_id, secret_hash: $secret_hash, permissions: $permissions, requested: $requested,
  created_at: datetime($now), expires_at: datetime($expires_at), device_id: $device_id,
  acting_manager_uid: $acting_manager_uid, method: $method, last_used_at: datetime($now), revoked_at: null
})-[:SESSION_OF]->(u)
FOREACH (_ IN CASE WHEN k IS NULL THEN [] ELSE [1] END | CREATE (s)-[:MINTED_FROM]->(k))
FOREACH (_ IN CASE WHEN parentSession IS NULL THEN [] ELSE [1] END | CREATE (s)-[:DELEGATED_FROM]->(parentSession))
FOREACH (_ IN CASE WHEN parentKey IS NULL THEN [] ELSE [1] END | CREATE (s)-[:DELEGATED_FROM]->(parentKey))
RETURN s.id AS session_id
