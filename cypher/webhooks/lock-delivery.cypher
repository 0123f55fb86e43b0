// First statement of a redelivery: the write lock on one delivery of the user, the lock a claim and
// a recorded attempt take (the SET takes it for the rest of the transaction; the REMOVE leaves
// nothing behind), so the next statement reads its state after any of them committed.
MATCH (d:Delivery {webhook_id: $webhook_id})
WHERE d.uid = $uid
SET d.redelivery_lock = true
REMOVE d.redelivery_lock
RETURN d.webhook_id AS webhook_id
