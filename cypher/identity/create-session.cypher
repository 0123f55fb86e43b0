// A new session for a user, optionally tied to the API key it was minted from.
MATCH (u:User {uid: $uid})
OPTIONAL MATCH (k:ApiKey {key_id: $key_id})
CREATE (s:Session {
  id: $session_id, secret_hash: $secret_hash, permissions: $permissions, requested: $requested,
  created_at: datetime($now), expires_at: datetime($expires_at), device_id: $device_id,
  acting_manager_uid: $acting_manager_uid, revoked_at: null
})-[:SESSION_OF]->(u)
FOREACH (_ IN CASE WHEN k IS NULL THEN [] ELSE [1] END | CREATE (s)-[:MINTED_FROM]->(k))
RETURN s.id AS session_id
