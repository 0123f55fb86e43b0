// Deactivates ($active false) or reactivates a managed user that $manager_uid manages and that is not
// deleted. While deactivated, the one grant rule ({{principal}}) gives it nothing and marks it
// inactive, so its keys and sessions fail at once (sessions.ts); deactivating also ends its sessions
// for good (reactivating brings its keys back, not its sessions) and turns off the webhook deliveries
// still pending for it (the planner plans none for a deactivated user: webhooks/plan-deliveries).
// Deactivating again keeps the first time.
MATCH (:User {uid: $manager_uid})-[:MANAGES]->(u:User {uid: $uid})
WHERE u.deleted_at IS NULL
// reactivated_at tells the webhook planner which events came after the reactivation (only a
// reactivation of a deactivated user moves it).
SET u.reactivated_at = CASE WHEN $active AND u.deactivated_at IS NOT NULL THEN datetime($now) ELSE u.reactivated_at END,
    u.deactivated_at = CASE WHEN $active THEN null ELSE coalesce(u.deactivated_at, datetime($now)) END
WITH u
CALL (u) {
  MATCH (u)<-[:SESSION_OF]-(s:Session)
  WHERE NOT $active AND s.revoked_at IS NULL
  SET s.revoked_at = datetime($now)
  RETURN count(s) AS sessions_ended
}
CALL (u) {
  MATCH (d:Delivery {uid: u.uid})
  WHERE NOT $active AND d.state = 'pending'
  SET d.state = 'disabled', d.next_attempt_at = null, d.last_error = 'The user was deactivated.'
  RETURN count(d) AS deliveries_stopped
}
RETURN u {.*} AS user
