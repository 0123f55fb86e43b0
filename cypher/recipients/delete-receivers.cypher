// Removes receiver edges in one statement, with their UNREAD twins (schema 019); answers the ones it
// removed.
UNWIND $pairs AS pair
MATCH (m:Message {id: pair.message_id})-[r:RECEIVED_BY]->(u:User {uid: pair.uid})
OPTIONAL MATCH (u)-[unread:UNREAD]->(m)
DELETE r, unread
RETURN DISTINCT pair.message_id AS message_id, pair.uid AS uid
