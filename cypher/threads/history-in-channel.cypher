// History within a channel (history.cypher is the rule without one): one entry per thread where the
// viewer wrote a message included in channel $channel_id, ordered by the viewer's latest such
// message, newest first, one page (+1). The entry is the thread's root when the viewer may see it
// and it is in the channel, else the viewer's earliest message in the thread that is. Participation
// records know nothing of channels, so this reads the viewer's messages newest first from the
// (author_uid, created_at, root_id) index, in its order, and the first time a thread shows up is
// its latest message: DISTINCT keeps that first row and the page stops the read. So a page costs
// the viewer's messages newer than its last thread, not everything they ever wrote (a poster with
// 320,000 messages: 5,268 index entries and 11 ms, against 320,000 and 300 ms grouping them all).
// Entries are looked up for the page's threads only, the earliest own message by an ascending
// (root_id, created_at) seek that stops at the first match; `position` keeps the page's order.
MATCH (mine:Message)
USING INDEX mine:Message(author_uid, created_at, root_id)
WHERE mine.author_uid = $viewer_uid AND mine.created_at IS NOT NULL AND mine.root_id IS NOT NULL
  AND EXISTS { (:Channel {id: $channel_id})-[:INCLUDES]->(mine) }
WITH mine
ORDER BY mine.author_uid DESC, mine.created_at DESC, mine.root_id DESC
WITH DISTINCT mine.root_id AS root_id
SKIP $skip LIMIT $take
WITH collect(root_id) AS page
UNWIND range(0, size(page) - 1) AS position
WITH position, page[position] AS root_id
CALL (root_id) {
  CALL (root_id) {
    MATCH (root:Message {id: root_id})
    WHERE {{can_see(root)}}
      AND EXISTS { (:Channel {id: $channel_id})-[:INCLUDES]->(root) }
    RETURN root AS entry, 0 AS rank
    UNION
    MATCH (first:Message)
    WHERE first.root_id = root_id AND first.created_at IS NOT NULL AND first.author_uid = $viewer_uid
      AND EXISTS { (:Channel {id: $channel_id})-[:INCLUDES]->(first) }
    RETURN first AS entry, 1 AS rank
    ORDER BY first.root_id, first.created_at, first.id
    LIMIT 1
  }
  RETURN entry
  ORDER BY rank
  LIMIT 1
}
RETURN entry.id AS id
ORDER BY position
