// A user's deliveries, newest first (the seq of their notifications); one more than asked for tells
// whether there are more.
MATCH (d:Delivery {uid: $uid})
USING INDEX d:Delivery(uid, seq)
WHERE d.seq IS NOT NULL
RETURN d {.webhook_id, .type, .url, .state, .attempts, .last_status, .last_error, .payload, .log,
          next_attempt_at: d.next_attempt_at, created_at: d.created_at, delivered_at: d.delivered_at} AS delivery
ORDER BY d.seq DESC
SKIP $skip
LIMIT $limit
