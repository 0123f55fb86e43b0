// First statement of a secret rotation: the write lock on the user's endpoint contact (the SET takes
// it for the rest of the transaction; the REMOVE leaves nothing behind), so two rotations, or a
// rotation and a verification, change its secrets one after the other; the second statement
// (rotate-secret) reads the secret under the lock. Says whether the endpoint is turned on (410 turns
// it off until it is verified again).
MATCH (:User {uid: $uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
WHERE c.verified_at IS NOT NULL
SET c.secret_lock = true
REMOVE c.secret_lock
RETURN c.disabled_at IS NULL AS enabled
ORDER BY c.verified_at DESC
LIMIT 1
