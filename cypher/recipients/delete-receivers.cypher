// Removes receiver edges in one statement, with their UNREAD twins (schema 019); answers the ones it
// removed. Then recomputes whether each touched message's author still addressed someone else in
// its thread (participation records, schema 020), last, in (uid, root_id) order.
UNWIND $pairs AS pair
MATCH (m:Message {id: pair.message_id})-[r:RECEIVED_BY]->(u:User {uid: pair.uid})
OPTIONAL MATCH (u)-[unread:UNREAD]->(m)
DELETE r, unread
WITH collect(DISTINCT {message_id: pair.message_id, uid: pair.uid}) AS removed,
     collect(DISTINCT {uid: m.author_uid, root_id: m.root_id}) AS touched_threads
CALL (touched_threads) {
  UNWIND touched_threads AS thread
  WITH thread
  WHERE thread.uid IS NOT NULL AND thread.root_id IS NOT NULL
  ORDER BY thread.uid, thread.root_id
  {{refresh_participation(thread)}}
}
UNWIND removed AS edge
RETURN edge.message_id AS message_id, edge.uid AS uid
