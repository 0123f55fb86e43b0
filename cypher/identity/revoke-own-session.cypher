// Revokes one session of the user by id (DELETE /v1/auth/sessions/{session_id}); nothing matches a
// session of anyone else. Revoking again keeps the first time, as for keys.
MATCH (:User {uid: $uid})<-[:SESSION_OF]-(s:Session {id: $session_id})
SET s.revoked_at = coalesce(s.revoked_at, datetime($now))
RETURN s.id AS session_id
