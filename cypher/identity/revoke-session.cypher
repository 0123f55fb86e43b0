// Revokes session $session_id of user $uid (naming the owner tells the session cache whose
// credentials changed, credential-writes.ts).
MATCH (s:Session {id: $session_id})-[:SESSION_OF]->(:User {uid: $uid})
WHERE s.revoked_at IS NULL
SET s.revoked_at = datetime($now)
RETURN s.id AS session_id
