// Makes $new_manager_uid a manager of $uid (run after lock-managers, in its transaction). Only a
// regular user may manage; adding a current manager again changes nothing. No row when the new
// manager is unknown or managed.
MATCH (u:User {uid: $uid})
MATCH (new:User {uid: $new_manager_uid})
WHERE NOT coalesce(new.is_managed, false)
MERGE (new)-[r:MANAGES]->(u)
ON CREATE SET r.since = datetime($now), r.added_by = $caller_uid
RETURN new.uid AS uid
