// Invites $new_manager_uid to manage $uid (run after lock-managers, in its transaction): a pending
// invitation (INVITED_TO_MANAGE), which gives no right and lends no grant until the invitee accepts
// it (accept-invitation; docs/decisions/023). Only a regular user may manage. Nothing changes when
// the user already manages it, or is already invited (the first invitation is kept). No row when the
// named user is unknown or managed.
MATCH (u:User {uid: $uid})
MATCH (new:User {uid: $new_manager_uid})
WHERE NOT coalesce(new.is_managed, false)
OPTIONAL MATCH (new)-[current:MANAGES]->(u)
FOREACH (_ IN CASE WHEN current IS NULL THEN [1] ELSE [] END |
  MERGE (new)-[i:INVITED_TO_MANAGE]->(u)
  ON CREATE SET i.invited_at = datetime($now), i.invited_by = $caller_uid)
RETURN new.uid AS uid
