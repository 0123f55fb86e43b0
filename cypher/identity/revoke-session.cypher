MATCH (s:Session {id: $session_id})
WHERE s.revoked_at IS NULL
SET s.revoked_at = datetime($now)
RETURN s.id AS session_id
