// The sessions behind tokens, each with its user (the grant as {{principal}} decides it) and, when
// minted from a key, the key's state. Many at once: socket heartbeats re-check theirs together
// (credential-reads.ts); a request reads its one.
UNWIND $session_ids AS session_id
MATCH (s:Session {id: session_id})-[:SESSION_OF]->(u:User)
OPTIONAL MATCH (s)-[:MINTED_FROM]->(k:ApiKey)
// A delegated session lives only while its manager still manages the user, and answers for the
// manager's credential that minted it (security finding #3): the manager's session (and that
// session's own key), or the manager's API key.
OPTIONAL MATCH (manager:User {uid: s.acting_manager_uid})-[:MANAGES]->(u)
OPTIONAL MATCH (s)-[:DELEGATED_FROM]->(parent)
OPTIONAL MATCH (parent)-[:MINTED_FROM]->(parentKey:ApiKey)
RETURN s {.id, .secret_hash, .permissions, .requested, .created_at, .expires_at, .revoked_at, .device_id,
          .acting_manager_uid, .last_used_at} AS session,
       {{principal(u)}} AS user,
       k {.key_id, .scopes_cap, .expires_at, .revoked_at} AS key,
       manager IS NOT NULL AS manager_link,
       manager {.scopes, .has_api_access} AS manager,
       CASE WHEN parent IS NULL THEN null ELSE parent {
         kind: CASE WHEN parent:Session THEN 'session' ELSE 'key' END,
         .permissions, .scopes_cap, .expires_at, .revoked_at,
         key: parentKey {.key_id, .scopes_cap, .expires_at, .revoked_at}
       } END AS parent
