// Who is told about a change to existing messages (message.updated, message.deleted): each
// message's author and recipients, and the channels that include it (their members hear it
// through the channel's stream). Read inside the changing transaction, before a deletion.
UNWIND $message_ids AS wanted
MATCH (m:Message {id: wanted})
RETURN m.id AS message_id, m.author_uid AS author_uid,
       COLLECT { MATCH (m)-[:RECEIVED_BY]->(u:User) RETURN u.uid } AS receiver_uids,
       COLLECT { MATCH (c:Channel)-[:INCLUDES]->(m) RETURN c.id } AS channel_ids
