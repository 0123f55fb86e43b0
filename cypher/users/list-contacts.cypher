MATCH (:User {uid: $uid})-[:HAS_CONTACT]->(c:Contact)
RETURN c {.kind, .value, .verified_at} AS contact
ORDER BY c.kind, c.value
