// The unread twins (schema 019) follow their receivers edges: the backup read them at different
// instants, so a read marked while it read may have left an edge and its twin out of step.
MATCH (u:User)-[t:UNREAD]->(m:Message)
WHERE NOT EXISTS { (m)-[r:RECEIVED_BY]->(u) WHERE r.read_at IS NULL }
CALL (t) { DELETE t } IN TRANSACTIONS OF 10000 ROWS
