// Extends a live session of user $uid in place; an empty permission set is recomputed from what was
// asked for.
MATCH (s:Session {id: $session_id})-[:SESSION_OF]->(:User {uid: $uid})
WHERE s.revoked_at IS NULL
SET s.expires_at = datetime($expires_at),
    s.permissions = CASE WHEN size(s.permissions) = 0 THEN $repaired_permissions ELSE s.permissions END
RETURN s.permissions AS permissions, s.expires_at AS expires_at
