// What a dispatcher's poll looks at before it takes any lock: whether the planner is behind the
// log's settled head (events numbered that no planning round has covered, e.g. a round whose bus
// message was lost) with a round worth planning (planning-due.cypher), and whether any delivery is
// due and unleased (a retry, a redelivery, or one whose holder's lease ran out). An idle service
// answers both with no and writes nothing.
OPTIONAL MATCH (planner:WebhookPlanner {id: 'planner'})
OPTIONAL MATCH (log:EventLog {id: 'log'})
RETURN coalesce(planner.head, 0) < {{settled_head(log)}} AND {{planning_due(log)}} AS behind,
       EXISTS {
         MATCH (d:Delivery) WHERE {{delivery_due(d)}}
       } AS due
