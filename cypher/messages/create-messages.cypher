// Creates the messages of one post (already validated) with their authorship edges.
MATCH (author:User {uid: $author_uid})
UNWIND $items AS item
CREATE (m:Message {
  id: item.id, content: item.content, subject: item.subject, public: item.public,
  created_at: datetime(item.created_at), author_uid: $author_uid, parent_id: item.parent_id,
  root_id: item.root_id, tags: item.tags, reply_order: null, default_outgoing: null,
  import_info_json: item.import_info_json
})
CREATE (author)-[:SENT]->(m)
RETURN count(m) AS created
