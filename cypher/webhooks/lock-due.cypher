// First half of claiming: picks due, unleased deliveries and takes their write locks (the SET). Reads
// in Neo4j are read-committed, so another instance may have picked the same ones; the second half
// (claim-locked) re-reads them under the lock, after any competing claim has committed.
// The order is total, so concurrent claimers lock in the same order and do not deadlock.
MATCH (d:Delivery)
WHERE {{delivery_due(d)}}
WITH d ORDER BY d.next_attempt_at, d.webhook_id
LIMIT $limit
SET d.claim_lock = true
RETURN d.webhook_id AS webhook_id
