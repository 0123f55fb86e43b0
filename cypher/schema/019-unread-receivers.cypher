// Unread counts (GET /v1/messages/unread, cypher/threads/unread-counts.cypher) must not read every
// message a user ever received. Each unread receivers edge has a twin (:User)-[:UNREAD]->(:Message),
// made with it, removed when it is read or removed, made again when it is marked unread. Neo4j keeps
// a busy node's relationships grouped by type and direction, so a user's UNREAD edges are read
// without touching the rest of their history, whatever the planner's statistics say (a relationship
// property index on the receivers edge was tried first: on a young store the planner scanned the
// whole index instead of seeking it). This version gives edges made before it their twin, in
// batches so that a large store needs no huge transaction; MERGE keeps two instances starting at
// once from making two.
MATCH (m:Message)-[r:RECEIVED_BY]->(u:User)
WHERE r.read_at IS NULL AND NOT EXISTS { (u)-[:UNREAD]->(m) }
CALL (m, u) { MERGE (u)-[:UNREAD]->(m) } IN TRANSACTIONS OF 10000 ROWS
