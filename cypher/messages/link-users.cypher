// The edges of a post's new messages that touch users (the author's SENT, each recipient's
// RECEIVED_BY), created in the order given: the caller sorts by uid. Creating an edge locks its
// user node (unless the node is dense), so two posts in opposite directions between the same users
// take those locks in the same order and cannot deadlock.
UNWIND $edges AS edge
MATCH (u:User {uid: edge.uid})
MATCH (m:Message {id: edge.message_id})
FOREACH (_ IN CASE WHEN edge.kind = 'sent' THEN [1] ELSE [] END | CREATE (u)-[:SENT]->(m))
FOREACH (_ IN CASE WHEN edge.kind = 'received' THEN [1] ELSE [] END |
  CREATE (m)-[:RECEIVED_BY {public: edge.public, added_by: $author_uid, added_at: datetime($now), read_at: null}]->(u))
RETURN count(*) AS linked
