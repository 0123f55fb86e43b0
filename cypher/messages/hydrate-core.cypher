// hydrate.cypher without the lists that cost the most (recipients, replies, stitches, channels,
// attachments, saved, reactions): for answers narrowed with `fields=` to what a message says and
// where it sits (id, content, subject, public, timestamp, author, parent_id, root_id, tags,
// import_info). Same row shape, with those lists empty; parent and root are judged as
// hydrate.cypher judges them.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
RETURN m {.id, .content, .subject, .public, .tags, .reply_order, .default_outgoing, .import_info_json,
          created_ms: m.created_at.epochMillis, edited_ms: m.edited_at.epochMillis} AS message,
       author {.uid, .user_tag} AS author,
       COLLECT { MATCH (parent:Message {id: m.parent_id}) WHERE parent.id IN $ids OR {{can_see(parent)}} RETURN parent.id }[0]
         AS parent_id,
       COLLECT { MATCH (root:Message {id: m.root_id}) WHERE root.id IN $ids OR {{can_see(root)}} RETURN root.id }[0]
         AS root_id,
       [] AS recipients, [] AS replies, [] AS stitch_parents, [] AS stitch_children, [] AS channel_ids,
       [] AS attachments, false AS is_saved, [] AS reactions
