// Deletes a managed user that $manager_uid manages. The node stays as a tombstone, with its uid, tag
// and profile, because its messages point to it (SENT, author_uid) and stay attributed; its tag stays
// taken, so nobody can later pass for it in those messages. It is deactivated for good: its sessions
// and keys are revoked, its contacts (the webhook endpoint and its secret) are removed, and its
// pending deliveries are turned off. The manages edges stay, so its managers may still edit or
// delete its messages ("author or manager"); everything that treats it as a live managed user skips
// it (find-managed-link, list-managed-users, models/list-bots).
MATCH (:User {uid: $manager_uid})-[:MANAGES]->(u:User {uid: $uid})
WHERE u.deleted_at IS NULL
SET u.deleted_at = datetime($now),
    u.deactivated_at = coalesce(u.deactivated_at, datetime($now)),
    u.has_api_access = false
WITH u
CALL (u) {
  MATCH (u)<-[:SESSION_OF]-(s:Session)
  WHERE s.revoked_at IS NULL
  SET s.revoked_at = datetime($now)
  RETURN count(s) AS sessions_ended
}
CALL (u) {
  MATCH (u)-[:OWNS_KEY]->(k:ApiKey)
  WHERE k.revoked_at IS NULL
  SET k.revoked_at = datetime($now)
  RETURN count(k) AS keys_revoked
}
CALL (u) {
  MATCH (u)-[:HAS_CONTACT]->(c:Contact)
  DETACH DELETE c
  RETURN count(*) AS contacts_removed
}
CALL (u) {
  MATCH (d:Delivery {uid: u.uid})
  WHERE d.state = 'pending'
  SET d.state = 'disabled', d.next_attempt_at = null, d.last_error = 'The user was deleted.'
  RETURN count(d) AS deliveries_stopped
}
RETURN u.uid AS uid
