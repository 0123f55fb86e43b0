// Inside the transaction that records notifications: one pending Delivery for each notification
// whose user has a verified endpoint contact that 410 has not turned off. It is due at once.
// (One endpoint contact per user is the rule; should there be several, the latest verified wins.)
UNWIND $items AS item
MATCH (:User {uid: item.uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
WHERE c.verified_at IS NOT NULL AND c.disabled_at IS NULL
WITH item, c ORDER BY c.verified_at DESC
WITH item, collect(c)[0] AS c
CREATE (d:Delivery {
  webhook_id: item.webhook_id,
  notification_id: item.notification_id,
  uid: item.uid,
  seq: toInteger(item.seq),
  url: c.value,
  type: item.type,
  payload: item.payload,
  state: 'pending',
  attempts: 0,
  log: [],
  created_at: datetime(item.created_at),
  next_attempt_at: datetime()
})
RETURN count(d) AS created
