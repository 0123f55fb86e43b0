// Unread counts: the viewer's unread receivers edges grouped by thread, with the totals and one page
// of threads (newest unread message first). The edges are found through the received_by_unread
// index (schema 019), so the work grows with what is unread, never with what the viewer ever
// received or wrote. A receivers edge makes its message visible to its recipient, so every message
// counted is one the viewer may see; a deleted message, or a removed recipient, takes its edge
// with it. Only the page's threads look up their newest unread message's id, one step down the
// (root_id, created_at) index, and their root, which is named only when the viewer may see it (as
// MessageOutput.root_id and the tree ids do).
CALL () {
  MATCH (m:Message)-[:RECEIVED_BY {unread_of: $viewer_uid}]->()
  RETURN m.root_id AS root_id, count(*) AS unread, max(m.created_at) AS latest_at
}
WITH root_id, unread, latest_at
ORDER BY latest_at DESC, root_id DESC
WITH collect({root_id: root_id, unread: unread, latest_at: latest_at}) AS threads
WITH reduce(total = 0, thread IN threads | total + thread.unread) AS total_messages,
     size(threads) AS total_threads, threads[$skip..($skip + $limit)] AS page
CALL (page) {
  UNWIND page AS thread
  CALL (thread) {
    MATCH (latest:Message)
    WHERE latest.root_id = thread.root_id AND latest.created_at = thread.latest_at
      AND EXISTS { (latest)-[:RECEIVED_BY {unread_of: $viewer_uid}]->() }
    RETURN latest.id AS latest_id
    ORDER BY latest.id DESC
    LIMIT 1
  }
  RETURN collect({root_id: COLLECT { MATCH (root:Message {id: thread.root_id}) WHERE {{can_see(root)}}
                                     RETURN root.id }[0],
                  unread_count: thread.unread, latest_message_id: latest_id,
                  latest_at: thread.latest_at}) AS entries
}
RETURN total_messages, total_threads, entries
