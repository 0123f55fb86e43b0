// A settle, under the log's lock (a SET that reads the node's own property takes the write lock
// before it reads), so no round is committing: every event up to the head is applied everywhere,
// indexes included, and readers may trust positions up to it.
MATCH (log:EventLog {id: 'log'})
SET log.settled = log.head
RETURN log.settled AS settled
