MATCH (i:IdempotencyRecord {key: $key})
WHERE i.created_at > datetime($since)
RETURN i.response AS response
