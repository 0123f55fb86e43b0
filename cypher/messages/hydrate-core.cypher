// hydrate.cypher without the lists that cost the most (recipients, replies, stitches, channels,
// attachments, saved, reactions): for answers narrowed with `fields=` to what a message says and
// where it sits (id, content, subject, public, timestamp, author, parent_id, root_id, tags,
// import_info). Same row shape, with those lists empty; parent and root are judged as
// hydrate.cypher judges them.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
RETURN {
  message: m {.id, .content, .subject, .public, .tags, .reply_order, .default_outgoing, .import_info_json,
              created_ms: m.created_at.epochMillis, edited_ms: m.edited_at.epochMillis},
  author: author {.uid, .user_tag},
  parent_id: COLLECT { MATCH (parent:Message {id: m.parent_id}) WHERE parent.id IN $ids OR {{can_see(parent)}} RETURN parent.id }[0],
  root_id: COLLECT { MATCH (root:Message {id: m.root_id}) WHERE root.id IN $ids OR {{can_see(root)}} RETURN root.id }[0],
  recipients: [], replies: [], stitch_parents: [], stitch_children: [], channel_ids: [],
  attachments: [], is_saved: false, reactions: []
} AS row
