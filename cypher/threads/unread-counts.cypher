// Unread counts: the viewer's unread messages grouped by thread, with the totals and one page of
// threads (newest unread message first). They are the viewer's UNREAD edges (the twins of unread
// receivers edges, schema 019), so the work grows with what is unread, never with what the viewer
// ever received or wrote. A receivers edge makes its message visible to its recipient, so every
// message counted is one the viewer may see; a deleted message, or a removed recipient, takes its
// edges with it. Each thread's newest unread message comes from the same rows (sorted before
// grouping), so nothing is looked up per thread but the page's roots: each entry names the root its
// newest unread message shows the viewer (fragments/shown-root.cypher, as that message's
// MessageOutput.root_id and tree ids do). One's own messages are never unread, even when addressed
// to oneself (behaviour check 2026-11-28): that edge is skipped.
CALL () {
  MATCH (:User {uid: $viewer_uid})-[:UNREAD]->(m:Message)
  WHERE m.author_uid <> $viewer_uid
  WITH m
  ORDER BY m.created_at DESC, m.id DESC
  RETURN m.root_id AS root_id, count(*) AS unread, collect(m)[0] AS latest
}
WITH root_id, unread, latest
ORDER BY latest.created_at DESC, latest.id DESC
WITH collect({root_id: root_id, unread: unread, latest: latest}) AS threads
WITH reduce(total = 0, thread IN threads | total + thread.unread) AS total_messages,
     size(threads) AS total_threads, threads[$skip..($skip + $limit)] AS page
CALL (page) {
  UNWIND range(0, size(page) - 1) AS position
  WITH position, page[position] AS thread
  WITH position, thread, thread.latest AS latest
  WITH position, {
         root_id: {{shown_root(latest)}},
         unread_count: thread.unread, latest_message_id: latest.id, latest_at: latest.created_at
       } AS entry
  ORDER BY position
  RETURN collect(entry) AS entries
}
RETURN total_messages, total_threads, entries
