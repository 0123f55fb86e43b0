// Everything a MessageOutput shows, for the messages in $ids the viewer may see. Every id list is
// filtered by the visibility rule; a BCC recipient is listed only to the author, its adder and itself.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
CALL (m) {
  OPTIONAL MATCH (parent:Message {id: m.parent_id})
  WHERE {{can_see(parent)}}
  RETURN parent.id AS parent_id
}
CALL (m) {
  OPTIONAL MATCH (root:Message {id: m.root_id})
  WHERE {{can_see(root)}}
  RETURN root.id AS root_id
}
CALL (m) {
  OPTIONAL MATCH (m)-[r:RECEIVED_BY]->(u:User)
  WHERE r.public OR m.author_uid = $viewer_uid OR r.added_by = $viewer_uid OR u.uid = $viewer_uid
  WITH r, u ORDER BY r.added_at, u.uid
  RETURN collect(CASE WHEN u IS NULL THEN null ELSE
    {uid: u.uid, user_tag: u.user_tag, public: r.public, added_by: r.added_by, read_at: r.read_at} END) AS recipients
}
CALL (m) {
  OPTIONAL MATCH (m)-[:REPLY]->(child:Message)
  WHERE {{can_see(child)}}
  WITH child ORDER BY child.created_at, child.id
  RETURN collect(child.id) AS reply_ids
}
CALL (m) {
  OPTIONAL MATCH (from:Message)-[:STITCH]->(m)
  WHERE {{can_see(from)}}
  WITH DISTINCT from ORDER BY from.created_at, from.id
  RETURN collect(from.id) AS stitch_parent_ids
}
CALL (m) {
  OPTIONAL MATCH (m)-[:STITCH]->(to:Message)
  WHERE {{can_see(to)}}
  WITH DISTINCT to ORDER BY to.created_at, to.id
  RETURN collect(to.id) AS stitch_child_ids
}
CALL (m) {
  OPTIONAL MATCH (channel:Channel)-[:INCLUDES]->(m)
  WHERE EXISTS { MATCH (channel)-[:HAS_MEMBER]->(:User {uid: $viewer_uid}) }
  WITH channel ORDER BY channel.id
  RETURN collect(channel.id) AS channel_ids
}
CALL (m) {
  OPTIONAL MATCH (m)-[a:ATTACHES]->(f:File)
  WITH a, f ORDER BY a.position
  RETURN collect(f {.file_id, .filename, .content_type, .size, .sha256}) AS attachments
}
RETURN m {.id, .content, .subject, .public, .created_at, .tags, .reply_order, .default_outgoing, .import_info_json} AS message,
       author {.uid, .user_tag} AS author,
       parent_id, root_id, recipients, reply_ids, stitch_parent_ids, stitch_child_ids, channel_ids, attachments,
       EXISTS { MATCH (:User {uid: $viewer_uid})-[:BOOKMARKED]->(m) } AS is_saved
