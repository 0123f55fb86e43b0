// The event log, read last. Events numbered up to the settled head are exact (every one of them is
// readable: fragments/settled-head.cypher); those numbered after it, or not yet, are written
// unnumbered, as a writer leaves them (:Event:PendingEvent, no seq), and the restored service's
// sequencer numbers them after that head when it starts. The log's head is the settled head. Events
// have no relationships.
OPTIONAL MATCH (log:EventLog {id: 'log'})
WITH {{settled_head(log)}} AS settled, log
CALL (settled, log) {
  MATCH (e)
  WHERE e:Event OR e:PendingEvent
  WITH e, e.seq IS NOT NULL AND e.seq <= settled AS numbered
  RETURN id(e) AS id,
         CASE WHEN numbered THEN labels(e) ELSE ['Event', 'PendingEvent'] END AS labels,
         CASE WHEN numbered THEN properties(e) ELSE e {.*, seq: null} END AS props
  UNION ALL
  WITH log, settled WHERE log IS NOT NULL
  RETURN id(log) AS id, labels(log) AS labels, log {.*, head: settled, settled: settled} AS props
}
RETURN id, labels, props
