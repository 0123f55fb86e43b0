// Marks read every unread receivers edge of the viewer on the messages of the thread holding $id
// (the same root), when the viewer may see that message; answers nothing otherwise. The messages
// come from the viewer's UNREAD edges (schema 019), as the unread counts read them, so the cost is
// what the viewer has unread, not the thread's size. A first read time is never moved.
MATCH (origin:Message {id: $id})
WHERE {{can_see(origin)}}
WITH origin.root_id AS root_id
CALL (root_id) {
  MATCH (viewer:User {uid: $viewer_uid})-[unread:UNREAD]->(m:Message)
  WHERE m.root_id = root_id
  MATCH (m)-[r:RECEIVED_BY]->(viewer)
  SET r.read_at = coalesce(r.read_at, datetime($now))
  DELETE unread
  RETURN count(DISTINCT m) AS marked
}
RETURN marked
