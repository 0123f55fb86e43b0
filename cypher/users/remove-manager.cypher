// Ends a manager's link to a managed user (run after lock-managers, in its transaction). The
// delegated and act-as sessions that manager holds for the user end with it: find-session requires
// the link of the session's acting manager. The invitations it sent for the user that are still
// pending are withdrawn: an invitation speaks for a current manager only (docs/decisions/023).
MATCH (:User {uid: $manager_uid})-[r:MANAGES]->(u:User {uid: $uid})
DELETE r
WITH u
CALL (u) {
  MATCH (:User)-[inv:INVITED_TO_MANAGE]->(u)
  WHERE inv.invited_by = $manager_uid
  DELETE inv
  RETURN count(*) AS withdrawn
}
RETURN count(*) AS removed
