// Ends every live session of the user but the one named (POST /v1/auth/sessions/revoke-others);
// with none named (an API-key request has no session), every one. Delegated sessions minted through
// an ended session die with it (find-session checks the parent), so they need no write here.
MATCH (:User {uid: $uid})<-[:SESSION_OF]-(s:Session)
WHERE s.revoked_at IS NULL AND s.expires_at > datetime($now) AND s.id <> coalesce($keep_session_id, '')
SET s.revoked_at = datetime($now)
RETURN s.id AS session_id
