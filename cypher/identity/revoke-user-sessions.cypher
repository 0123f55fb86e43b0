// Ends every live session of a user (after a password change or reset), keeping one if named, and
// every session in which the user acts for someone they manage, whatever credential minted it.
CALL () {
  MATCH (:User {uid: $uid})<-[:SESSION_OF]-(s:Session)
  RETURN s
  UNION
  MATCH (:User {uid: $uid})-[:MANAGES]->(:User)<-[:SESSION_OF]-(s:Session {acting_manager_uid: $uid})
  RETURN s
}
WITH s
WHERE s.revoked_at IS NULL AND s.id <> coalesce($keep_session_id, '')
SET s.revoked_at = datetime($now)
RETURN count(s) AS revoked
