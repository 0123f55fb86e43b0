// What each requested event shows its user, judged for that user when it is handed out: the
// messages they can see (in the order recorded; their own left out unless include_own, since nobody
// is told about what they wrote themselves) and, with with_context, up to 10 ancestors of the first
// one that they can see, root first. parent_id is null where the user cannot see the parent. An
// item whose messages are all gone or hidden comes back with none, and is not handed out.
UNWIND $items AS item
WITH item, item.uid AS viewer_uid
CALL (item, viewer_uid) {
  UNWIND range(0, size(item.message_ids) - 1) AS position
  MATCH (m:Message {id: item.message_ids[position]})
  WHERE {{can_see(m, viewer_uid)}} AND (item.include_own OR m.author_uid <> viewer_uid)
  MATCH (author:User {uid: m.author_uid})
  OPTIONAL MATCH (parent:Message {id: m.parent_id})
  WHERE {{can_see(parent, viewer_uid)}}
  WITH position, m, author, parent ORDER BY position
  RETURN collect({id: m.id, content: m.content, parent_id: parent.id,
                  author: {uid: author.uid, user_tag: author.user_tag}}) AS messages,
         collect(m)[0] AS first
}
CALL (item, viewer_uid, first) {
  OPTIONAL MATCH path = (ancestor:Message)-[:REPLY*1..10]->(first)
  WHERE item.with_context
  WITH ancestor, length(path) AS distance
  WHERE ancestor IS NOT NULL AND NOT ancestor.id IN item.message_ids AND {{can_see(ancestor, viewer_uid)}}
  MATCH (author:User {uid: ancestor.author_uid})
  OPTIONAL MATCH (parent:Message {id: ancestor.parent_id})
  WHERE {{can_see(parent, viewer_uid)}}
  WITH ancestor, author, parent, distance ORDER BY distance DESC
  RETURN collect({id: ancestor.id, content: ancestor.content, parent_id: parent.id,
                  author: {uid: author.uid, user_tag: author.user_tag}}) AS context
}
RETURN item.key AS key, messages, context
