// Records use of keys. Callers send a key only when its stored time is over a minute old, and
// gather what a second brings into one write (credential-reads.ts).
UNWIND $key_ids AS key_id
MATCH (k:ApiKey {key_id: key_id})
SET k.last_used_at = datetime($now)
