// Creates the messages of one post (already validated). Their edges follow in link-users and
// link-new-messages, in an order every writer shares (users, then parents, then channels), so
// concurrent posts between the same people never wait on each other in a cycle.
UNWIND $items AS item
CREATE (m:Message {
  id: item.id, content: item.content, subject: item.subject, public: item.public,
  created_at: datetime(item.created_at), author_uid: $author_uid, parent_id: item.parent_id,
  root_id: item.root_id, tags: item.tags, reply_order: null, default_outgoing: null,
  import_info_json: item.import_info_json
})
RETURN count(m) AS created
