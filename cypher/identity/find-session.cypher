// The session behind a token, with its user and (when minted from a key) the key's state.
MATCH (s:Session {id: $session_id})-[:SESSION_OF]->(u:User)
OPTIONAL MATCH (s)-[:MINTED_FROM]->(k:ApiKey)
// A delegated session lives only while its manager still manages the user.
OPTIONAL MATCH (manager:User {uid: s.acting_manager_uid})-[:MANAGES]->(u)
RETURN s {.id, .secret_hash, .permissions, .requested, .created_at, .expires_at, .revoked_at, .device_id,
          .acting_manager_uid} AS session,
       u {.uid, .user_tag, .is_managed, .scopes, .has_api_access} AS user,
       k {.key_id, .scopes_cap, .expires_at, .revoked_at} AS key,
       manager IS NOT NULL AS manager_link
