// Kept in the transaction of the write it answers; the unique key makes a concurrent duplicate
// fail. An expired record of the same key is replaced.
OPTIONAL MATCH (old:IdempotencyRecord {key: $key})
WHERE old.created_at <= datetime($since)
DELETE old
WITH count(*) AS ignored
CREATE (:IdempotencyRecord {key: $key, response: $response, created_at: datetime($now)})
