// Second statement of a settle, under the log's lock (so no round is committing): every event up to
// the head is applied everywhere, indexes included, and readers may trust positions up to it.
MATCH (log:EventLog {id: 'log'})
SET log.settled = log.head
RETURN log.settled AS settled
