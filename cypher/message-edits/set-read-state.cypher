// Sets or clears read_at on the viewer's receivers edge of a visible message. A first read time is
// kept when marked read again. Without such an edge nothing is stored (has_edge false). An unread
// edge has an UNREAD twin from its recipient, which the unread counts read (schema 019): it goes
// when the message is read and comes back when it is marked unread.
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
OPTIONAL MATCH (m)-[r:RECEIVED_BY]->(viewer:User {uid: $viewer_uid})
SET r.read_at = CASE WHEN $read THEN coalesce(r.read_at, datetime($now)) ELSE null END
WITH m, r, viewer
CALL (m, r, viewer) {
  WITH m, viewer WHERE r IS NOT NULL AND NOT $read
  MERGE (viewer)-[:UNREAD]->(m)
  UNION
  WITH m, viewer WHERE r IS NOT NULL AND $read
  MATCH (viewer)-[unread:UNREAD]->(m)
  DELETE unread
}
RETURN m.id AS id, r IS NOT NULL AS has_edge, r.read_at AS read_at
