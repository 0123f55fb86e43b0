// API keys and their owners, with each owner's grant as {{principal}} decides it. Many at once:
// socket heartbeats re-check theirs together (credential-reads.ts); a request reads its one. Times
// come as epoch milliseconds, as in find-sessions.
UNWIND $key_ids AS key_id
MATCH (owner:User)-[:OWNS_KEY]->(k:ApiKey {key_id: key_id})
RETURN k {.key_id, .hash, .scopes_cap, expires_at: k.expires_at.epochMillis,
          revoked_at: k.revoked_at.epochMillis, last_used_at: k.last_used_at.epochMillis} AS key,
       {{principal(owner)}} AS user
