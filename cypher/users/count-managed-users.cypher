// Before a managed user is created under $manager_uid commits (manage-users.ts): takes the
// manager's write lock, so concurrent creations by one account run one after another and the count
// stays true until commit; the SET and REMOVE leave the node as it was. Counts the users it manages
// that are not deleted (deactivated ones count: they can be reactivated), the new one included.
MATCH (m:User {uid: $manager_uid})
SET m.managed_count_lock = true
REMOVE m.managed_count_lock
RETURN COUNT { (m)-[:MANAGES]->(u:User) WHERE u.deleted_at IS NULL } AS managed
