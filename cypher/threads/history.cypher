// History: one entry per thread where the viewer wrote a message, ordered by the viewer's latest
// message there, newest first, one page (+1). The entry is the thread's root when the viewer may
// see it, else the viewer's earliest message in the thread. With $channel_id only messages
// included in that channel count. The viewer's messages come from the (author_uid, created_at,
// root_id) index, which holds their thread too, and are grouped by thread (a cost that grows with
// the viewer's own messages, not with the store); entries are looked up for the page's threads
// only, the earliest own message by an ascending (root_id, created_at) seek that stops at the first
// match.
MATCH (mine:Message)
USING INDEX mine:Message(author_uid, created_at, root_id)
WHERE mine.author_uid = $viewer_uid AND mine.created_at IS NOT NULL AND mine.root_id IS NOT NULL
  AND ($channel_id IS NULL OR EXISTS { (:Channel {id: $channel_id})-[:INCLUDES]->(mine) })
WITH mine.root_id AS root_id, max(mine.created_at) AS latest
ORDER BY latest DESC, root_id DESC
SKIP $skip LIMIT $take
CALL (root_id) {
  CALL (root_id) {
    MATCH (root:Message {id: root_id})
    WHERE {{can_see(root)}}
      AND ($channel_id IS NULL OR EXISTS { (:Channel {id: $channel_id})-[:INCLUDES]->(root) })
    RETURN root AS entry, 0 AS rank
    UNION
    MATCH (first:Message)
    WHERE first.root_id = root_id AND first.created_at IS NOT NULL AND first.author_uid = $viewer_uid
      AND ($channel_id IS NULL OR EXISTS { (:Channel {id: $channel_id})-[:INCLUDES]->(first) })
    RETURN first AS entry, 1 AS rank
    ORDER BY first.root_id, first.created_at, first.id
    LIMIT 1
  }
  RETURN entry
  ORDER BY rank
  LIMIT 1
}
RETURN entry.id AS id
ORDER BY latest DESC, root_id DESC
