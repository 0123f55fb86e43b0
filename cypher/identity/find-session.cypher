// The session behind a token, with its user and (when minted from a key) the key's state. A managed
// user holds only what one of its managers holds now, and has API access only while one of them has
// (security finding #4).
MATCH (s:Session {id: $session_id})-[:SESSION_OF]->(u:User)
WITH s, u,
     CASE WHEN coalesce(u.is_managed, false)
          THEN COLLECT { MATCH (m:User)-[:MANAGES]->(u) RETURN m {.scopes, .has_api_access} } END AS managers
OPTIONAL MATCH (s)-[:MINTED_FROM]->(k:ApiKey)
// A delegated session lives only while its manager still manages the user, and answers for the
// manager's credential that minted it (security finding #3): the manager's session (and that
// session's own key), or the manager's API key.
OPTIONAL MATCH (manager:User {uid: s.acting_manager_uid})-[:MANAGES]->(u)
OPTIONAL MATCH (s)-[:DELEGATED_FROM]->(parent)
OPTIONAL MATCH (parent)-[:MINTED_FROM]->(parentKey:ApiKey)
RETURN s {.id, .secret_hash, .permissions, .requested, .created_at, .expires_at, .revoked_at, .device_id,
          .acting_manager_uid} AS session,
       u {.uid, .user_tag, .is_managed,
          scopes: CASE WHEN managers IS NULL THEN u.scopes
                       ELSE [scope IN u.scopes WHERE any(m IN managers WHERE scope IN m.scopes)] END,
          has_api_access: CASE WHEN managers IS NULL THEN u.has_api_access
                               ELSE u.has_api_access AND any(m IN managers WHERE m.has_api_access) END} AS user,
       k {.key_id, .scopes_cap, .expires_at, .revoked_at} AS key,
       manager IS NOT NULL AS manager_link,
       manager {.scopes, .has_api_access} AS manager,
       CASE WHEN parent IS NULL THEN null ELSE parent {
         kind: CASE WHEN parent:Session THEN 'session' ELSE 'key' END,
         .permissions, .scopes_cap, .expires_at, .revoked_at,
         key: parentKey {.key_id, .scopes_cap, .expires_at, .revoked_at}
       } END AS parent
