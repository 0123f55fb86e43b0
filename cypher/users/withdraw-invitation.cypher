// A manager withdraws the pending invitation of $invitee_uid to manage $uid (run after lock-managers,
// in its transaction).
MATCH (:User {uid: $invitee_uid})-[inv:INVITED_TO_MANAGE]->(:User {uid: $uid})
DELETE inv
RETURN count(*) AS withdrawn
