// Second half of claiming, in the same transaction: under the write lock, keeps only deliveries that
// are still due and unleased, and leases them to this claimer. Each attempt goes to the user's
// current endpoint contact (URL and secrets read now, so a re-verified endpoint or a rotated secret
// is used at once; the secret a rotation replaced signs too until its overlap ends); a delivery whose
// user no longer has an enabled, verified endpoint is marked disabled instead. An endpoint that asks
// for the messages' contexts (include_context) also gets the recipient's grant now, to read them as
// the recipient (events/message-contexts.ts).
UNWIND $webhook_ids AS webhook_id
MATCH (d:Delivery {webhook_id: webhook_id})
REMOVE d.claim_lock
WITH d
WHERE {{delivery_due(d)}}
OPTIONAL MATCH (:User {uid: d.uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
WHERE {{live_endpoint(c)}}
WITH d, c ORDER BY c.verified_at DESC
WITH d, collect(c)[0] AS c
SET d.state = CASE WHEN c IS NULL THEN 'disabled' ELSE d.state END,
    d.next_attempt_at = CASE WHEN c IS NULL THEN null ELSE d.next_attempt_at END,
    d.last_error = CASE WHEN c IS NULL THEN 'The endpoint contact is gone or turned off.' ELSE d.last_error END,
    d.redelivery = CASE WHEN c IS NULL THEN null ELSE d.redelivery END,
    d.url = coalesce(c.value, d.url),
    d.lease_token = CASE WHEN c IS NULL THEN null ELSE $lease_token END,
    d.lease_owner = CASE WHEN c IS NULL THEN null ELSE $owner END,
    d.lease_until = CASE WHEN c IS NULL THEN null ELSE datetime() + duration({milliseconds: $lease_ms}) END
WITH d, c
WHERE c IS NOT NULL
OPTIONAL MATCH (e:Event {id: d.event_id})
OPTIONAL MATCH (u:User {uid: d.uid}) WHERE c.include_context = true
RETURN d {.webhook_id, .uid, .url, .attempts, redelivery: coalesce(d.redelivery, false)} AS delivery,
       e {.*, created_at: e.created_at} AS event,
       CASE WHEN u IS NULL THEN null ELSE {{principal(u)}} END AS recipient,
       c.secret AS secret,
       CASE WHEN c.previous_secret_expires_at > datetime() THEN c.previous_secret END AS previous_secret,
       datetime() AS claimed_at
