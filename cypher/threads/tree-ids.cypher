// For the messages in $ids the viewer may see, grouped by thread: the thread's root id (null unless
// the viewer may see the root), the visible ids of the thread, oldest first, found through the
// (root_id, created_at) index rather than by walking reply edges, and which of $ids are in it.
// One row per thread, not per asked message: many messages of one thread (a GraphQL list asking
// each item for its thread) cost one walk of the thread and one copy of its ids.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
WITH m.root_id AS thread_root, collect(m.id) AS asked
CALL (thread_root) {
  OPTIONAL MATCH (root:Message {id: thread_root})
  WHERE {{can_see(root)}}
  RETURN root.id AS root_id
}
CALL (thread_root) {
  MATCH (t:Message)
  WHERE t.root_id = thread_root AND t.created_at IS NOT NULL AND {{can_see(t)}}
  WITH t ORDER BY t.created_at, t.id
  RETURN collect(t.id) AS ids
}
RETURN asked, root_id, ids
