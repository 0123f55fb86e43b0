// THE rule for whether the webhook planner has a round worth its write, used as
// {{planning_due(log)}} with `planner` (the :WebhookPlanner node, or null) in scope: by the
// dispatcher's poll (find-work.cypher), and by the planner before it takes its lock
// (plan-deliveries.cypher). Some endpoint contact is live, or the planner lags a full batch
// ($limit) behind the settled head of the log __m, so that an endpoint verified later is caught up
// with in one round. Without a live endpoint anywhere, a numbered round costs the planner no write
// and no commit; the events it passes over could not have had a delivery (an endpoint gets none for
// events recorded before its verification).
(EXISTS { MATCH (__endpoint:Contact {kind: 'endpoint'}) WHERE {{live_endpoint(__endpoint)}} }
 OR {{settled_head(__m)}} - coalesce(planner.head, 0) >= $limit)
