// Records the events of one change inside its write transaction, unnumbered: the sequencer numbers
// them after commit (fragments/create-event.cypher says why this takes no hot lock).
UNWIND $events AS e
{{create_event(e)}}
RETURN count(*) AS recorded
