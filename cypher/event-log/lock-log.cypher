// First statement of a sequencer round: the write lock on the log's one node, so rounds (of this
// and every other instance) number one after another. Its own statement, so that the next one reads
// the head under the lock (a read inside the locking statement may be older than the lock).
MERGE (log:EventLog {id: 'log'})
  ON CREATE SET log.head = 0
SET log.locked_at = datetime()
RETURN true AS locked
