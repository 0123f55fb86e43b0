// The first version's per-user notification rows (:Notification, copies of message content): the
// event log replaced them, and nothing reads them, so they go a batch at a time.
MATCH (n:Notification)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS pruned
