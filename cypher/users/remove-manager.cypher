// Ends a manager's link to a managed user (run after lock-managers, in its transaction). The
// delegated and act-as sessions that manager holds for the user end with it: find-session requires
// the link of the session's acting manager.
MATCH (:User {uid: $manager_uid})-[r:MANAGES]->(:User {uid: $uid})
DELETE r
RETURN count(*) AS removed
