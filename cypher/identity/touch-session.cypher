// Records use of a session; callers only send it when the stored time is over a minute old, so a
// busy session costs one write a minute, not one a request.
MATCH (s:Session {id: $session_id})
SET s.last_used_at = datetime($now)
