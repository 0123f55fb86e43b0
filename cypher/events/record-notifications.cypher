// Stores notifications in the outbox, numbering each user's in order after that user's last number.
// Runs after lock-recipients.cypher in the same transaction, so event_seq is read under the lock
// and numbers are gapless and unique in commit order. One row per user with all of their items.
UNWIND $users AS entry
MATCH (u:User {uid: entry.uid})
WITH u, entry, coalesce(u.event_seq, 0) AS base
SET u.event_seq = base + size(entry.items)
REMOVE u._event_lock
WITH u, entry, base
UNWIND range(0, size(entry.items) - 1) AS i
WITH u, entry.items[i] AS item, base + i + 1 AS seq
CREATE (n:Notification {id: item.id, uid: u.uid, seq: seq, type: item.type,
                        payload: item.payload, created_at: datetime(item.created_at)})
RETURN n.id AS id, n.seq AS seq
