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
RETURN pair.message_id AS message_id, pair.uid AS uid, created AS added,
       existing IS NULL OR existing.public OR existing.added_by = $viewer_uid
         OR m.author_uid = $viewer_uid OR u.uid = $viewer_uid AS shown,
       coalesce(existing.public, pair.public) AS public
