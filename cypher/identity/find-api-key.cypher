// An API key and its owner, with the owner's grant as {{principal}} decides it.
MATCH (owner:User)-[:OWNS_KEY]->(k:ApiKey {key_id: $key_id})
RETURN k {.key_id, .hash, .scopes_cap, .expires_at, .revoked_at, .last_used_at} AS key,
       {{principal(owner)}} AS user
