// Whether `manager_uid` manages `subject_uid`.
MATCH (m:User {uid: $manager_uid})-[:MANAGES]->(s:User {uid: $subject_uid})
RETURN s {.uid, .user_tag, .is_managed, .scopes, .has_api_access} AS subject
