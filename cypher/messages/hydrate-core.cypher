// hydrate.cypher without the lists that cost the most (recipients, replies, stitches, channels,
// attachments, saved, reactions): for answers narrowed with `fields=` to what a message says and
// where it sits (id, content, subject, public, timestamp, author, parent_id, root_id, tags,
// import_info, stream). The same row, a list in the order of fragments/hydrated-message.cypher, with those
// lists empty; one record of `rows`, `visible_lineage` and `visible_tops`, parent and root judged as
// hydrate.cypher judges them.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
WITH collect([
  [m.id, m.content, m.subject, m.public, m.tags, m.reply_order, m.default_outgoing, m.import_info_json,
   m.created_at.epochMillis, m.edited_at.epochMillis, m.stream_json],
  [author.uid, author.user_tag],
  m.parent_id,
  m.root_id,
  [], [], [], [], [], [], false, []
]) AS rows
{{visible_lineage(rows)}}
RETURN rows, visible_lineage, visible_tops
