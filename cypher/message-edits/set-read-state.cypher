// Sets or clears read_at on the viewer's receivers edge of a visible message. A first read time is
// kept when marked read again. Without such an edge nothing is stored (has_edge false). An unread
// edge carries its recipient's uid as unread_of, which the unread counts find it by (schema 019).
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
OPTIONAL MATCH (m)-[r:RECEIVED_BY]->(:User {uid: $viewer_uid})
SET r.read_at = CASE WHEN $read THEN coalesce(r.read_at, datetime($now)) ELSE null END,
    r.unread_of = CASE WHEN $read THEN null ELSE $viewer_uid END
RETURN m.id AS id, r IS NOT NULL AS has_edge, r.read_at AS read_at
