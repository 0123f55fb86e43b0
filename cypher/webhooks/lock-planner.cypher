// First statement of a planning round: the write lock on the planner's one node, so rounds (of this
// and every other instance) plan one after another, each from where the last one stopped.
MERGE (planner:WebhookPlanner {id: 'planner'})
  ON CREATE SET planner.head = 0
SET planner.locked_at = datetime()
RETURN true AS locked
