// Whether `manager_uid` manages `subject_uid`; a deleted managed user is nobody's (its tombstone keeps
// the edges only for its messages' "author or manager" rules). `active` is false while deactivated.
MATCH (m:User {uid: $manager_uid})-[:MANAGES]->(s:User {uid: $subject_uid})
WHERE s.deleted_at IS NULL
RETURN s {.uid, .user_tag, .is_managed, .scopes, .has_api_access, active: s.deactivated_at IS NULL} AS subject
