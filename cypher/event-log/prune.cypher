// Removes numbered events older than the retention, a batch at a time (the caller repeats until a
// batch comes back short), but never one the webhook planner has not read yet.
OPTIONAL MATCH (planner:WebhookPlanner {id: 'planner'})
WITH coalesce(planner.head, 0) AS planned
MATCH (e:Event)
WHERE e.created_at < datetime($before) AND e.seq <= planned
WITH e LIMIT $limit
DETACH DELETE e
RETURN count(*) AS pruned
