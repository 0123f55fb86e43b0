// Second statement of a sequencer round: numbers committed, unnumbered events after the head, oldest
// first, and moves the head. Events of transactions still open are not visible yet; the next round
// takes them. `base` is the head before this round; the round that wrote it has finished its commit
// (its lock was released after), so `base` is settled.
MATCH (log:EventLog {id: 'log'})
OPTIONAL MATCH (pending:PendingEvent)
WITH log, pending ORDER BY pending.created_at, pending.id
LIMIT $limit
WITH log, [e IN collect(pending) WHERE e IS NOT NULL] AS events
WITH log, events, log.head AS base
SET log.head = base + size(events), log.settled = base
WITH base, events
CALL (base, events) {
  UNWIND range(0, size(events) - 1) AS i
  WITH base + i + 1 AS seq, events[i] AS e
  SET e.seq = seq
  REMOVE e:PendingEvent
  RETURN collect(e {.*, created_at: e.created_at}) AS numbered
}
RETURN base, numbered
