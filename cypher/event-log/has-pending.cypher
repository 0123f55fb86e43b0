// Whether the sweep has work: a committed event waiting for a number, or a head not settled yet (a
// round whose settle failed). Its cheap question before it writes anything.
OPTIONAL MATCH (log:EventLog {id: 'log'})
RETURN EXISTS { MATCH (:PendingEvent) } OR {{settled_head(log)}} < coalesce(log.head, 0)
       AS pending
