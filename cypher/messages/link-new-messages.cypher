// The edges of a post's new messages: replies to their parents, receivers, channel inclusions and
// attachments. Runs in the same transaction as create-messages; the counts let the caller check
// that no parent vanished in between.
CALL () {
  UNWIND $replies AS reply
  MATCH (parent:Message {id: reply.parent_id})
  MATCH (child:Message {id: reply.child_id})
  CREATE (parent)-[:REPLY]->(child)
  RETURN count(*) AS replies
}
CALL () {
  UNWIND $receivers AS receiver
  MATCH (m:Message {id: receiver.message_id})
  MATCH (u:User {uid: receiver.uid})
  MERGE (m)-[r:RECEIVED_BY]->(u)
  ON CREATE SET r.public = receiver.public, r.added_by = $author_uid, r.added_at = datetime($now), r.read_at = null
  RETURN count(*) AS receivers
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
RETURN replies, receivers, inclusions, attachments
