// Sets or clears read_at on the viewer's receivers edge of a visible message. A first read time is
// kept when marked read again. Without such an edge nothing is stored (has_edge false).
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
OPTIONAL MATCH (m)-[r:RECEIVED_BY]->(:User {uid: $viewer_uid})
SET r.read_at = CASE WHEN $read THEN coalesce(r.read_at, datetime($now)) ELSE null END
RETURN m.id AS id, r IS NOT NULL AS has_edge, r.read_at AS read_at
