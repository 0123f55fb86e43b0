// Second statement of a redelivery, under the delivery's lock: its state as it is now, whether an
// attempt holds it, and whether the user has an endpoint to send to (verified, and not turned off by 410)
// and is active (a deactivated or deleted bot gets no deliveries; see plan-deliveries.cypher).
MATCH (d:Delivery {webhook_id: $webhook_id})
OPTIONAL MATCH (u:User {uid: d.uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
WHERE {{live_endpoint(c)}} AND u.deactivated_at IS NULL
RETURN d.state AS state,
       d.lease_until IS NOT NULL AND d.lease_until > datetime() AS leased,
       count(c) > 0 AS endpoint_enabled
