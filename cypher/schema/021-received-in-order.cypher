// A viewer's timeline must not read every message the viewer ever received. Each receivers edge
// carries its recipient's uid and its message's creation time (receiver_uid, created_at), written
// with the edge (write-post.cypher, merge-receivers.cypher), and a relationship index on the pair
// lets the timeline read a recipient's newest edges in order and stop after one page. Before it, the
// timeline's received branch expanded all of the viewer's receivers edges and sorted them: 1,025
// edges for a page of 50 on the peer benchmark's store, and a third of a page's database time.
// Neither property ever changes: an edge is never moved to another user, a message's creation time
// is never edited. This version writes them on edges made before it, in batches.
CREATE INDEX received_by_receiver_created IF NOT EXISTS FOR ()-[r:RECEIVED_BY]-() ON (r.receiver_uid, r.created_at);
MATCH (m:Message)-[r:RECEIVED_BY]->(u:User)
WHERE r.receiver_uid IS NULL OR r.created_at IS NULL
CALL (m, r, u) { SET r.receiver_uid = u.uid, r.created_at = m.created_at } IN TRANSACTIONS OF 10000 ROWS
