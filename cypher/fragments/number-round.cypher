// THE sequencer round, with __m the name for the log's node, used by event-log/number-pending (a
// round of the sequencer's own) and by messages/write-post (a lone post numbering its events in
// its own statement, event-sequencer.ts says when). Answers `base` and `numbered`, at most
// $round_limit events. It takes the write lock on the log's one node, so rounds (of this and every
// other instance) number one after another, then numbers committed, unnumbered events after the
// head, oldest first, and moves the head. The lock comes first and everything is read in the
// clauses after it: Neo4j reads committed data as it goes (read-committed), so what a later clause
// reads is no older than the lock (the "lost updates" pattern of Neo4j's manual, Concurrent data
// access). Events of other transactions still open are not visible yet; the next round takes them.
// `base` is the head before this round; the round that wrote it has finished its commit (its lock
// was released after), so `base` is settled. The events of one change share created_at and are
// kept together (ordered by change_id next), which is what lets a feed forget a change as soon as
// the next one starts (ChangeFilter in event-payloads.ts).
MERGE (__m:EventLog {id: 'log'})
  ON CREATE SET __m.head = 0
SET __m.locked_at = datetime()
WITH __m
OPTIONAL MATCH (pending:PendingEvent)
WITH __m, pending ORDER BY pending.created_at, pending.change_id, pending.id
LIMIT $round_limit
WITH __m, [e IN collect(pending) WHERE e IS NOT NULL] AS events
WITH __m, events, __m.head AS base
SET __m.head = base + size(events), __m.settled = base
WITH base, events
CALL (base, events) {
  UNWIND range(0, size(events) - 1) AS i
  WITH base + i + 1 AS seq, events[i] AS e
  SET e.seq = seq
  REMOVE e:PendingEvent
  RETURN collect(e {.*, created_at: e.created_at}) AS numbered
}
