// Saves a visible message to the viewer's bookmarks; saving it again keeps the first saved_at.
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
MATCH (u:User {uid: $viewer_uid})
MERGE (u)-[b:BOOKMARKED]->(m)
ON CREATE SET b.saved_at = datetime($now)
RETURN m.id AS id, b.saved_at AS saved_at
