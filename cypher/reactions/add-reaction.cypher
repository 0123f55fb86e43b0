// The viewer's reaction, one edge per (user, message, reaction), under the message's lock (the
// use case checked it is new and within the caps). MERGE alone would not do: two transactions can
// both find no edge and both create one; under the lock the second finds the first's.
MATCH (m:Message {id: $id})
MATCH (u:User {uid: $viewer_uid})
MERGE (u)-[r:REACTED {reaction: $reaction}]->(m)
ON CREATE SET r.at = datetime($now)
RETURN r.at AS at
