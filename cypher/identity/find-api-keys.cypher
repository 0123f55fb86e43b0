// API keys and their owners, with each owner's grant as {{principal}} decides it. Many at once:
// socket heartbeats re-check theirs together (credential-reads.ts); a request reads its one. Times
// come as epoch milliseconds, as in find-sessions. A key counts as revoked once it, or a key it was
// minted with, is (lineage-revoked-at, docs/decisions/024).
UNWIND $key_ids AS key_id
MATCH (owner:User)-[:OWNS_KEY]->(k:ApiKey {key_id: key_id})
RETURN k {.key_id, .hash, .scopes_cap, expires_at: k.expires_at.epochMillis,
          revoked_at: {{lineage_revoked_at(k)}}.epochMillis, last_used_at: k.last_used_at.epochMillis} AS key,
       {{principal(owner)}} AS user
