// The other edges of a post's new messages: replies to their parents, channel inclusions and
// attachments. Runs after link-users in the same transaction; the counts let the caller check that
// no parent vanished in between.
CALL () {
  UNWIND $replies AS reply
  MATCH (parent:Message {id: reply.parent_id})
  MATCH (child:Message {id: reply.child_id})
  CREATE (parent)-[:REPLY]->(child)
  RETURN count(*) AS replies
}
CALL () {
  UNWIND $inclusions AS inclusion
  MATCH (c:Channel {id: inclusion.channel_id})
  MATCH (m:Message {id: inclusion.message_id})
  MERGE (c)-[i:INCLUDES]->(m)
  ON CREATE SET i.added_by = $author_uid, i.added_at = datetime($now)
  RETURN count(*) AS inclusions
}
CALL () {
  UNWIND $attachments AS attachment
  MATCH (m:Message {id: attachment.message_id})
  MATCH (f:File {file_id: attachment.file_id})
  MERGE (m)-[a:ATTACHES]->(f)
  ON CREATE SET a.position = attachment.position
  RETURN count(*) AS attachments
}
RETURN replies, inclusions, attachments
