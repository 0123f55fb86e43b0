// Before a change of a managed user's managers: takes the managed user's write lock first, so
// concurrent changes run one after another and the count read here stays true until commit (a
// managed user keeps a manager). No row when $caller_uid does not manage it or it is deleted.
MATCH (:User {uid: $caller_uid})-[:MANAGES]->(u:User {uid: $uid})
WHERE u.deleted_at IS NULL
SET u.managers_changed_at = datetime($now)
WITH u
OPTIONAL MATCH (target:User {uid: $target_uid})-[:MANAGES]->(u)
RETURN target IS NOT NULL AS target_manages,
       COUNT { (:User)-[:MANAGES]->(u) } AS manager_count
