// A user's deliveries, newest first (by the position of their events); one more than asked for
// tells whether there are more. Each comes with its event, to build the body as it would be now.
MATCH (d:Delivery {uid: $uid})
USING INDEX d:Delivery(uid, seq)
WHERE d.seq IS NOT NULL
WITH d ORDER BY d.seq DESC
SKIP $skip
LIMIT $limit
OPTIONAL MATCH (e:Event {id: d.event_id})
RETURN d {.webhook_id, .type, .url, .state, .attempts, .last_status, .last_error, .log,
          next_attempt_at: d.next_attempt_at, created_at: d.created_at, delivered_at: d.delivered_at} AS delivery,
       e {.*, created_at: e.created_at} AS event
ORDER BY d.seq DESC
