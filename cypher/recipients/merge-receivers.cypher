// Adds receiver edges in one statement, under the messages' locks (lock-messages.cypher). An
// existing edge is left as it is (its first added_by and its CC/BCC flag win); `added` tells which
// edges this statement created, and `shown` whether the adder may see an edge that already existed
// (a BCC edge is shown only to the message's author, its adder and its recipient).
UNWIND $pairs AS pair
MATCH (m:Message {id: pair.message_id})
MATCH (u:User {uid: pair.uid})
OPTIONAL MATCH (m)-[existing:RECEIVED_BY]->(u)
WITH m, u, pair, existing
CALL (m, u, pair, existing) {
  WITH m, u, pair, existing WHERE existing IS NULL
  CREATE (m)-[:RECEIVED_BY {public: pair.public, added_by: $viewer_uid, added_at: datetime($now), read_at: null}]->(u)
  CREATE (u)-[:UNREAD]->(m)
  RETURN true AS created
  UNION
  WITH existing WHERE existing IS NOT NULL
  RETURN false AS created
}
WITH collect({
       message_id: pair.message_id, uid: pair.uid, added: created,
       shown: existing IS NULL OR existing.public OR existing.added_by = $viewer_uid
         OR m.author_uid = $viewer_uid OR u.uid = $viewer_uid,
       public: coalesce(existing.public, pair.public)
     }) AS results,
     collect(CASE WHEN created AND u.uid <> m.author_uid THEN {uid: m.author_uid, root_id: m.root_id} END)
       AS addressed_threads
// An author whose message now has another recipient addressed someone in its thread
// (participation records, schema 020): raised last, in (uid, root_id) order.
CALL (addressed_threads) {
  UNWIND addressed_threads AS thread
  WITH DISTINCT thread
  WITH thread
  ORDER BY thread.uid, thread.root_id
  MATCH (record:Participation {uid: thread.uid, root_id: thread.root_id})
  SET record.addressed = true
}
UNWIND results AS result
RETURN result.message_id AS message_id, result.uid AS uid, result.added AS added, result.shown AS shown,
       result.public AS public
