// The caller's managed users, deactivated ones included; deleted ones (tombstones) are left out.
MATCH (:User {uid: $manager_uid})-[:MANAGES]->(u:User)
WHERE u.deleted_at IS NULL
RETURN u {.*} AS user
ORDER BY u.created_at, u.uid
