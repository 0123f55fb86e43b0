// Marks read every unread receivers edge of the viewer on the messages of the thread holding $id
// (the same root), when the viewer may see that message; answers nothing otherwise. The edges come
// from the received_by_unread index (schema 019), as the unread counts read them, so the cost is
// the viewer's unread edges, not the thread's size. A first read time is never moved.
MATCH (origin:Message {id: $id})
WHERE {{can_see(origin)}}
WITH origin.root_id AS root_id
CALL (root_id) {
  MATCH (m:Message)-[r:RECEIVED_BY {unread_of: $viewer_uid}]->()
  WHERE m.root_id = root_id
  SET r.read_at = coalesce(r.read_at, datetime($now)), r.unread_of = null
  RETURN count(r) AS marked
}
RETURN marked
