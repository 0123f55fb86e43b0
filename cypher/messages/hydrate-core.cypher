// hydrate.cypher without the lists that cost the most (recipients, replies, stitches, channels,
// attachments, saved): for answers narrowed with `fields=` to what a message says and where it sits
// (id, content, subject, public, timestamp, author, parent_id, root_id, tags, import_info). Same
// answer shape, with those lists empty; parent and root are judged like any neighbour.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
WITH collect({
       message: m {.id, .content, .subject, .public, .tags, .reply_order, .default_outgoing, .import_info_json,
                   created_ms: m.created_at.epochMillis},
       author: author {.uid, .user_tag},
       parent_id: m.parent_id,
       root_id: m.root_id,
       recipients: [], replies: [], stitch_parents: [], stitch_children: [], channel_ids: [], attachments: [],
       is_saved: false
     }) AS rows,
     collect(m.id) AS found
CALL (rows, found) {
  UNWIND rows AS row
  UNWIND [row.parent_id, row.root_id] AS other
  WITH DISTINCT other
  WHERE other IS NOT NULL AND NOT other IN found
  MATCH (n:Message {id: other})
  WHERE {{can_see(n)}}
  RETURN collect(n.id) AS others
}
RETURN rows, found + others AS visible
