// Stores notifications in the outbox, giving each the next number of its user's own sequence. The
// user node's write lock serialises concurrent writers, so numbers are gapless and in commit order.
// Items come sorted by uid so that concurrent transactions take user locks in the same order.
UNWIND $items AS item
MATCH (u:User {uid: item.uid})
SET u.event_seq = coalesce(u.event_seq, 0) + 1
CREATE (n:Notification {id: item.id, uid: item.uid, seq: u.event_seq, type: item.type,
                        payload: item.payload, created_at: datetime(item.created_at)})
RETURN n.id AS id, n.seq AS seq
