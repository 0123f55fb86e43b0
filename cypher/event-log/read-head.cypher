// The settled head (fragments/settled-head.cypher says what it is): how far readers of the log
// (GET /v1/notifications, gap fills, the webhook planner) may trust its positions.
OPTIONAL MATCH (log:EventLog {id: 'log'})
RETURN {{settled_head(log)}} AS head
