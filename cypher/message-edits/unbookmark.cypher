// Removes a visible message from the viewer's bookmarks (nothing to do when it is not saved).
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
OPTIONAL MATCH (:User {uid: $viewer_uid})-[b:BOOKMARKED]->(m)
DELETE b
RETURN m.id AS id
