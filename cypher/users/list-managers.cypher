// The managers of a managed user that is not deleted, oldest first (the caller's right to see them
// is that it is one of them: manage-managers.ts).
MATCH (m:User)-[r:MANAGES]->(u:User {uid: $uid})
WHERE u.deleted_at IS NULL
RETURN m.uid AS uid, m.user_tag AS user_tag, m.display_name AS display_name,
       coalesce(r.since, u.created_at) AS since
ORDER BY since, m.uid
