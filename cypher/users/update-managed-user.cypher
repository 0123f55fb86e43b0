// A manager's edit of a managed user (PATCH /v1/managed/users/{uid}): writes the given fields only
// when $manager_uid manages it and it is not deleted, so the check and the write are one statement.
MATCH (:User {uid: $manager_uid})-[:MANAGES]->(u:User {uid: $uid})
WHERE u.deleted_at IS NULL
SET u += $changes
RETURN u {.*} AS user
