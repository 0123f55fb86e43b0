// The settled head: every event numbered up to it is readable through every index (0 before the
// first event). A round's commit becomes visible to readers piece by piece (node properties before
// index entries), so the head a round writes is only trusted once that commit has finished, which
// the next round or settle-head records; a log from before `settled` existed falls back to head.
OPTIONAL MATCH (log:EventLog {id: 'log'})
RETURN coalesce(log.settled, log.head, 0) AS head
