// Records use of a key; callers only send it when the stored time is over a minute old.
MATCH (k:ApiKey {key_id: $key_id})
SET k.last_used_at = datetime($now)
