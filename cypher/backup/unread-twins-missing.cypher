MATCH (m:Message)-[r:RECEIVED_BY]->(u:User)
WHERE r.read_at IS NULL AND NOT EXISTS { (u)-[:UNREAD]->(m) }
CALL (m, u) { MERGE (u)-[:UNREAD]->(m) } IN TRANSACTIONS OF 10000 ROWS
