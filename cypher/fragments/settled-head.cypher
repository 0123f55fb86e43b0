// THE settled head of the event log __m (an optional match of (:EventLog {id: 'log'})), used as
// {{settled_head(log)}}: every event numbered up to it is readable through every index, 0 before the
// first event. A round's commit becomes visible to readers piece by piece (node properties before
// index entries), so the head a round writes is only trusted once that commit has finished, which
// the next round or settle-head.cypher records; a log from before `settled` existed falls back to
// its head.
coalesce(__m.settled, __m.head, 0)
