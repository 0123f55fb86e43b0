// A planning round, in one statement: first the write lock on the planner's one node, so rounds (of
// this and every other instance) plan one after another, each from where the last one stopped; the
// clauses after it read committed data as they go, so nothing they read is older than the lock (as
// in event-log/number-pending.cypher). Then, for the next numbered events of the spec's four types,
// one pending Delivery per recipient that has a verified endpoint contact 410 has not turned off (a
// user event's user; a channel event's members, except those it skips), due at once; then the
// planner moves past them. An event recorded before the endpoint's latest
// verification gets none: it happened while the endpoint was off (or not yet there), and the
// planner's lag must not decide whether it is sent. The body is built at each attempt, from the graph.
// (One endpoint contact per user is the rule; should there be several, the latest verified wins.)
// A user its manager deactivated gets none, nor for events of before its reactivation
// (users/set-managed-user-active.cypher), whatever the planner's lag.
// Only a round worth its write takes the lock (planning-due.cypher); any other writes nothing.
CALL () {
  OPTIONAL MATCH (planner:WebhookPlanner {id: 'planner'})
  OPTIONAL MATCH (log:EventLog {id: 'log'})
  RETURN {{planning_due(log)}} AS due
}
WITH due WHERE due
MERGE (planner:WebhookPlanner {id: 'planner'})
  ON CREATE SET planner.head = 0
SET planner.locked_at = datetime()
WITH planner
OPTIONAL MATCH (log:EventLog {id: 'log'})
// Up to the settled head (read-head.cypher): an event numbered below it is surely in the index. Or
// up to $heard, the end of a round heard on the bus, which was published after its commit finished
// (never beyond the log's head), so a delivery is planned as soon as its round is heard.
WITH planner, planner.head AS after,
     CASE WHEN $heard > {{settled_head(log)}} AND $heard <= coalesce(log.head, 0) THEN $heard
          ELSE {{settled_head(log)}} END AS settled
WITH planner, after,
     CASE WHEN settled <= after THEN after
          WHEN settled < after + $limit THEN settled
          ELSE after + $limit END AS upto
CALL (after, upto) {
  MATCH (e:Event)
  WHERE e.seq > after AND e.seq <= upto AND e.type IN ['sent', 'ping', 'added', 'channels']
  CALL (e) {
    MATCH (u:User {uid: e.uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
    WHERE {{live_endpoint(c)}} AND c.verified_at <= e.created_at
      AND u.deactivated_at IS NULL AND coalesce(u.reactivated_at <= e.created_at, true)
    RETURN u, c
    UNION
    MATCH (:Channel {id: e.channel_id})-[:HAS_MEMBER]->(u:User)-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
    WHERE {{live_endpoint(c)}} AND c.verified_at <= e.created_at
      AND NOT u.uid IN e.skip_uids
      AND u.deactivated_at IS NULL AND coalesce(u.reactivated_at <= e.created_at, true)
    RETURN u, c
  }
  WITH e, u, c ORDER BY c.verified_at DESC
  WITH e, u, collect(c)[0] AS c
  CREATE (d:Delivery {
    webhook_id: 'msg_' + replace(e.id, '-', '') + '_' + u.uid,
    event_id: e.id,
    uid: u.uid,
    seq: e.seq,
    url: c.value,
    type: e.type,
    state: 'pending',
    attempts: 0,
    log: [],
    created_at: e.created_at,
    next_attempt_at: datetime()
  })
  RETURN count(d) AS planned
}
SET planner.head = upto
RETURN planned, upto - after AS advanced
