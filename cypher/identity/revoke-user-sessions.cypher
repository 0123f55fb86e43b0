// Ends every live session of a user (after a password change or reset), keeping one if named.
MATCH (:User {uid: $uid})<-[:SESSION_OF]-(s:Session)
WHERE s.revoked_at IS NULL AND s.id <> coalesce($keep_session_id, '')
SET s.revoked_at = datetime($now)
RETURN count(s) AS revoked
