// Before a change of a managed user's managers: takes the managed user's write lock first, so
// concurrent changes run one after another and the count read here stays true until commit (a
// managed user keeps a manager). No row when $caller_uid does not manage it or it is deleted.
// `target_invited`: the target has a pending invitation to manage it (invite-manager).
MATCH (:User {uid: $caller_uid})-[:MANAGES]->(u:User {uid: $uid})
WHERE u.deleted_at IS NULL
SET u.managers_changed_at = datetime($now)
WITH u
OPTIONAL MATCH (target:User {uid: $target_uid})
RETURN target IS NOT NULL AND EXISTS { (target)-[:MANAGES]->(u) } AS target_manages,
       target IS NOT NULL AND EXISTS { (target)-[:INVITED_TO_MANAGE]->(u) } AS target_invited,
       COUNT { (:User)-[:MANAGES]->(u) } AS manager_count
