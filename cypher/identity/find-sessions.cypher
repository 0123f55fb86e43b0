// The sessions behind tokens, each with its user (the grant as {{principal}} decides it) and, when
// minted from a key, the key's state. Many at once: socket heartbeats re-check theirs together
// (credential-reads.ts); a request reads its one. Times come as epoch milliseconds, which the
// driver decodes far faster than DateTime values (identity-repository.ts turns them into ISO strings).
UNWIND $session_ids AS session_id
MATCH (s:Session {id: session_id})-[:SESSION_OF]->(u:User)
OPTIONAL MATCH (s)-[:MINTED_FROM]->(k:ApiKey)
// A delegated session lives only while its manager still manages the user, and answers for the
// manager's credential that minted it (security finding #3): the manager's session (and that
// session's own key), or the manager's API key. A key counts as revoked once it, or a key it was
// minted with, is (lineage-revoked-at, docs/decisions/024).
OPTIONAL MATCH (manager:User {uid: s.acting_manager_uid})-[:MANAGES]->(u)
OPTIONAL MATCH (s)-[:DELEGATED_FROM]->(parent)
OPTIONAL MATCH (parent)-[:MINTED_FROM]->(parentKey:ApiKey)
RETURN s {.id, .secret_hash, .permissions, .requested, .device_id, .acting_manager_uid,
          created_at: s.created_at.epochMillis, expires_at: s.expires_at.epochMillis,
          revoked_at: s.revoked_at.epochMillis, last_used_at: s.last_used_at.epochMillis} AS session,
       {{principal(u)}} AS user,
       k {.key_id, .scopes_cap, expires_at: k.expires_at.epochMillis, revoked_at: {{lineage_revoked_at(k)}}.epochMillis} AS key,
       manager IS NOT NULL AS manager_link,
       manager {.scopes, .has_api_access} AS manager,
       CASE WHEN parent IS NULL THEN null ELSE parent {
         kind: CASE WHEN parent:Session THEN 'session' ELSE 'key' END,
         .permissions, .scopes_cap, expires_at: parent.expires_at.epochMillis,
         revoked_at: {{lineage_revoked_at(parent)}}.epochMillis,
         key: parentKey {.key_id, .scopes_cap, expires_at: parentKey.expires_at.epochMillis,
                         revoked_at: {{lineage_revoked_at(parentKey)}}.epochMillis}
       } END AS parent
