// The user's sessions that are neither revoked nor expired, newest first, each with the same state
// find-session reads (its key, and for a delegated session the manager link and the parent
// credential), so that the use case judges a listed session exactly as a request presenting it
// (sessions.ts, assertLiveSession). `method` is what the record says of how the session was made;
// sessions from before it was recorded say so through their key or their acting manager, or not at all.
// Times come as epoch milliseconds, as find-sessions returns them.
MATCH (u:User {uid: $uid})<-[:SESSION_OF]-(s:Session)
WHERE s.revoked_at IS NULL AND s.expires_at > datetime($now)
OPTIONAL MATCH (s)-[:MINTED_FROM]->(k:ApiKey)
OPTIONAL MATCH (manager:User {uid: s.acting_manager_uid})-[:MANAGES]->(u)
OPTIONAL MATCH (s)-[:DELEGATED_FROM]->(parent)
OPTIONAL MATCH (parent)-[:MINTED_FROM]->(parentKey:ApiKey)
RETURN s {.id, .secret_hash, .permissions, .requested, .device_id, .acting_manager_uid,
          created_at: s.created_at.epochMillis, expires_at: s.expires_at.epochMillis,
          revoked_at: s.revoked_at.epochMillis, last_used_at: s.last_used_at.epochMillis} AS session,
       coalesce(s.method, CASE
         WHEN s.acting_manager_uid IS NOT NULL THEN 'delegation'
         WHEN k IS NOT NULL THEN 'api_key'
       END) AS method,
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
ORDER BY s.created_at DESC, s.id
