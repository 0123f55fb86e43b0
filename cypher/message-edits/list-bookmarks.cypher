// One page of the viewer's bookmarked messages that it may still see, newest bookmark first; one
// extra row tells whether more follow.
MATCH (:User {uid: $viewer_uid})-[b:BOOKMARKED]->(m:Message)
WHERE {{can_see(m)}}
WITH m, b
ORDER BY b.saved_at DESC, m.id DESC
SKIP toInteger($skip)
LIMIT toInteger($limit) + 1
RETURN m.id AS id
