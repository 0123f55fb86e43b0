// Adds receiver edges in one statement. An existing edge is left as it is (its first added_by and
// its CC/BCC flag win); `added` tells which edges this statement created.
UNWIND $pairs AS pair
MATCH (m:Message {id: pair.message_id})
MATCH (u:User {uid: pair.uid})
WITH m, u, pair, EXISTS { MATCH (m)-[:RECEIVED_BY]->(u) } AS existed
MERGE (m)-[r:RECEIVED_BY]->(u)
  ON CREATE SET r.public = pair.public, r.added_by = $viewer_uid, r.added_at = datetime($now), r.read_at = null
RETURN pair.message_id AS message_id, pair.uid AS uid, NOT existed AS added
