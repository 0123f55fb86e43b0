// 410 Gone from an endpoint: turns the user's endpoint contact off (no deliveries are created for it
// until its owner verifies it again) and marks the user's other pending deliveries disabled. A
// contact verified after the attempt began is a fresh promise from its owner and is left alone.
MATCH (u:User {uid: $uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint', value: $url})
WHERE c.disabled_at IS NULL AND datetime(c.verified_at) <= datetime($attempt_started_at)
SET c.disabled_at = datetime(), c.disabled_reason = 'HTTP 410 from the endpoint'
WITH DISTINCT u
OPTIONAL MATCH (d:Delivery {uid: u.uid, state: 'pending'})
SET d.state = 'disabled', d.next_attempt_at = null,
    d.last_error = coalesce(d.last_error, 'The endpoint answered 410 Gone to another delivery.')
RETURN count(d) AS disabled
