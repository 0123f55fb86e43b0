// The result of one attempt, written only while this claimer still holds the lease (a claimer whose
// lease ran out has been replaced, and the new holder's result is the one that counts). A delivery
// turned off meanwhile (410 on another delivery of the same endpoint) stays off unless this attempt
// got through. A redelivery asked for by hand is one attempt, so its mark goes with the lease.
MATCH (d:Delivery {webhook_id: $webhook_id})
WHERE d.lease_token = $lease_token
WITH d, CASE WHEN $state = 'delivered' OR d.state = 'pending' THEN $state ELSE d.state END AS state
SET d.attempts = d.attempts + 1,
    d.state = state,
    d.last_status = $status,
    d.last_error = $error,
    d.last_attempt_at = datetime(),
    d.delivered_at = CASE WHEN state = 'delivered' THEN datetime() ELSE d.delivered_at END,
    d.next_attempt_at = CASE WHEN state = 'pending' THEN datetime() + duration({milliseconds: $delay_ms}) ELSE null END,
    d.log = (coalesce(d.log, []) + [$entry])[-$max_log..]
REMOVE d.lease_token, d.lease_owner, d.lease_until, d.redelivery
RETURN d.webhook_id AS webhook_id, d.state AS state
