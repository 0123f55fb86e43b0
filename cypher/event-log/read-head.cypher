// The last number the sequencer gave out (0 before the first event).
OPTIONAL MATCH (log:EventLog {id: 'log'})
RETURN coalesce(log.head, 0) AS head
