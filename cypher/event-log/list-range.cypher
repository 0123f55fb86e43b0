// Numbered events after one position and up to another, in order: how an instance fills a gap in
// what it heard (a round published by another instance that never arrived).
MATCH (e:Event)
WHERE e.seq > $after AND e.seq <= $upto
RETURN e {.*, created_at: e.created_at} AS event
ORDER BY e.seq
LIMIT $limit
