// Conversation: the messages between the viewer and $other_uid across threads, newest first, one
// page (+1 to tell has_more): the viewer's messages with a receivers edge (CC or BCC) to the other
// user, and the other user's messages with a receivers edge to the viewer.
//
// Each direction (author → recipient) is found one of two ways, chosen by the recipient's number of
// receivers edges (getDegree: a stored count on a busy node, a short walk on a quiet one):
// - at most $expand_max: walk the recipient's receivers edges and keep the author's messages. The
//   cost is that count, whatever the author wrote.
// - more: read the author's (author_uid, created_at) index backwards (ordering by the equality
//   property first keeps the index order), keep the messages holding the receivers edge, and stop
//   at $cap. The cost grows with the page and with what the author wrote to others in between,
//   not with the store; a pair that rarely writes to each other reads further back
//   (docs/views-query-plans.md).
// Either way a branch keeps its newest $cap (= skip + limit + 1) messages; the top of the union is
// within the branches' tops. The fragment re-checks the merged rows so that the rule itself is
// still stated in one place only.
MATCH (viewer:User {uid: $viewer_uid}), (other:User {uid: $other_uid})
WITH viewer, other,
  COUNT { (viewer)<-[:RECEIVED_BY]-() } AS viewer_edges,
  COUNT { (other)<-[:RECEIVED_BY]-() } AS other_edges
CALL (viewer, other, viewer_edges, other_edges) {
  WITH other WHERE other_edges <= $expand_max
  MATCH (other)<-[:RECEIVED_BY]-(m:Message)
  WHERE m.author_uid = $viewer_uid
  RETURN m ORDER BY m.created_at DESC, m.id DESC LIMIT $cap
  UNION
  WITH other WHERE other_edges > $expand_max
  CALL (other) {
    MATCH (m:Message)
    WHERE m.author_uid = $viewer_uid AND m.created_at IS NOT NULL
      AND EXISTS { (m)-[:RECEIVED_BY]->(other) }
    RETURN m ORDER BY m.author_uid DESC, m.created_at DESC, m.id DESC LIMIT $cap
  }
  RETURN m
  UNION
  WITH viewer WHERE viewer_edges <= $expand_max
  MATCH (viewer)<-[:RECEIVED_BY]-(m:Message)
  WHERE m.author_uid = $other_uid
  RETURN m ORDER BY m.created_at DESC, m.id DESC LIMIT $cap
  UNION
  WITH viewer WHERE viewer_edges > $expand_max
  CALL (viewer) {
    MATCH (m:Message)
    WHERE m.author_uid = $other_uid AND m.created_at IS NOT NULL
      AND EXISTS { (m)-[:RECEIVED_BY]->(viewer) }
    RETURN m ORDER BY m.author_uid DESC, m.created_at DESC, m.id DESC LIMIT $cap
  }
  RETURN m
}
WITH m
WHERE {{can_see(m)}}
RETURN m.id AS id
ORDER BY m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
