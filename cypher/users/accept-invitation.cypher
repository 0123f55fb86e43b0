// The caller accepts its pending invitation to manage $uid: the invitation becomes a MANAGES edge
// (with accepted_at, and the inviter as added_by), the only way, besides creating a managed user,
// that one comes to be, so that a bot's grant follows only managers who agreed (principal.cypher,
// docs/decisions/023). Takes the managed user's write lock first, as lock-managers does, so a
// removal of the inviter running at the same time is seen. No row (nothing changes) when there is
// no such invitation, the managed user is deleted, or its inviter no longer manages it.
MATCH (me:User {uid: $caller_uid})-[inv:INVITED_TO_MANAGE]->(u:User {uid: $uid})
WHERE u.deleted_at IS NULL
SET u.managers_changed_at = datetime($now)
WITH me, inv, u
WHERE EXISTS { MATCH (:User {uid: inv.invited_by})-[:MANAGES]->(u) }
MERGE (me)-[r:MANAGES]->(u)
ON CREATE SET r.since = datetime($now), r.added_by = inv.invited_by, r.accepted_at = datetime($now)
DELETE inv
RETURN u.uid AS uid
