// Every node but the event log's, with its internal id (only a key within the archive: relationships
// name their ends by it), its labels and its properties. id() is deprecated for elementId(), whose
// strings are five times longer and would be written twice more per relationship.
MATCH (n)
WHERE NOT (n:Event OR n:PendingEvent OR n:EventLog)
RETURN id(n) AS id, labels(n) AS labels, properties(n) AS props
