// hydrate.cypher without the lists that cost the most (recipients, replies, stitches, channels,
// attachments, saved, reactions): for answers narrowed with `fields=` to what a message says and
// where it sits (id, content, subject, public, timestamp, author, parent_id, root_id, tags,
// import_info). The same row, a list in the order of fragments/hydrated-message.cypher, with those
// lists empty; parent and root are judged as hydrate.cypher judges them.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
RETURN [
  [m.id, m.content, m.subject, m.public, m.tags, m.reply_order, m.default_outgoing, m.import_info_json,
   m.created_at.epochMillis, m.edited_at.epochMillis],
  [author.uid, author.user_tag],
  COLLECT { MATCH (parent:Message {id: m.parent_id}) WHERE parent.id IN $ids OR {{can_see(parent)}} RETURN parent.id }[0],
  COLLECT { MATCH (root:Message {id: m.root_id}) WHERE root.id IN $ids OR {{can_see(root)}} RETURN root.id }[0],
  [], [], [], [], [], [], false, []
] AS row
