// For the messages in $ids the viewer may see, grouped by thread: the visible ids of the thread,
// oldest first, found through the (root_id, created_at) index rather than by walking reply edges,
// and which of $ids are in it, each with the root it shows the viewer (fragments/shown-root.cypher,
// as its MessageOutput.root_id: never null, its own id when the viewer sees it as a root).
// One row per thread, not per asked message: many messages of one thread (a GraphQL list asking
// each item for its thread) cost one walk of the thread and one copy of its ids.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
WITH m.root_id AS thread_root, collect([m.id, {{shown_root(m)}}]) AS asked
CALL (thread_root) {
  MATCH (t:Message)
  WHERE t.root_id = thread_root AND t.created_at IS NOT NULL AND {{can_see(t)}}
  WITH t ORDER BY t.created_at, t.id
  RETURN collect(t.id) AS ids
}
RETURN asked, ids
