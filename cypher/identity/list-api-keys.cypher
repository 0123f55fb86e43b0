// The user's keys, newest first. `revoked_at` counts a revocation of a key it was minted with too
// (lineage-revoked-at), so the list never shows as live a key that fails (docs/decisions/024).
MATCH (:User {uid: $uid})-[:OWNS_KEY]->(k:ApiKey)
RETURN k {.key_id, .label, .prefix, .scopes_cap, .created_at, .expires_at, .last_used_at,
          revoked_at: {{lineage_revoked_at(k)}}} AS key
ORDER BY k.created_at DESC
