// Unread counts (GET /v1/messages/unread, cypher/threads/unread-counts.cypher) must not read every
// message a user ever received. An unread receivers edge carries its recipient's uid as
// `unread_of` (set when the edge is made, removed when it is read, put back when it is marked
// unread), and this index finds a user's unread edges directly: the work grows with what is unread,
// not with the user's history. Neo4j does not index a missing value, so read edges cost the index
// nothing. The second statement gives edges made before this version their marker, in batches so a
// large store does not need one huge transaction.
CREATE INDEX received_by_unread IF NOT EXISTS FOR ()-[r:RECEIVED_BY]-() ON (r.unread_of);
MATCH ()-[r:RECEIVED_BY]->(u:User)
WHERE r.read_at IS NULL AND r.unread_of IS NULL
CALL (r, u) { SET r.unread_of = u.uid } IN TRANSACTIONS OF 10000 ROWS
