// One user's notifications after a sequence number, oldest first.
MATCH (n:Notification {uid: $uid})
WHERE n.seq > $since
RETURN n {.id, .uid, .seq, .payload, created_at: n.created_at} AS notification
ORDER BY n.seq
LIMIT $limit
