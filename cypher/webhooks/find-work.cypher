// What a dispatcher's poll looks at before it takes any lock: whether the planner is behind the
// log's settled head (events numbered that no planning round has covered, e.g. a round whose bus
// message was lost), and whether any delivery is due and unleased (a retry, a redelivery, or one
// whose holder's lease ran out). An idle service answers both with no and writes nothing.
// $only_uids as in lock-due.cypher.
OPTIONAL MATCH (planner:WebhookPlanner {id: 'planner'})
OPTIONAL MATCH (log:EventLog {id: 'log'})
RETURN coalesce(planner.head, 0) < coalesce(log.settled, log.head, 0) AS behind,
       EXISTS {
         MATCH (d:Delivery)
         WHERE d.state = 'pending' AND d.next_attempt_at <= datetime()
           AND (d.lease_until IS NULL OR d.lease_until <= datetime())
           AND ($only_uids IS NULL OR d.uid IN $only_uids)
       } AS due
