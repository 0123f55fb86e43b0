// For each message in $ids the viewer may see: its thread's root id (null unless the viewer may
// see the root) and the visible ids of the thread, oldest first, found through the
// (root_id, created_at) index rather than by walking reply edges.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
CALL (m) {
  OPTIONAL MATCH (root:Message {id: m.root_id})
  WHERE {{can_see(root)}}
  RETURN root.id AS root_id
}
CALL (m) {
  MATCH (t:Message)
  WHERE t.root_id = m.root_id AND t.created_at IS NOT NULL AND {{can_see(t)}}
  WITH t ORDER BY t.created_at, t.id
  RETURN collect(t.id) AS ids
}
RETURN m.id AS id, root_id, ids
