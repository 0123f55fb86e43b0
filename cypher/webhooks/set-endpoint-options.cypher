// The options of a user's webhook endpoint (PATCH /v1/managed/users/{uid}/endpoint): today only
// include_context, whether each delivery also carries its messages' conversation contexts. Kept on
// the endpoint contact itself, so verifying it again (or another URL, which takes over the same
// node, contacts/set-endpoint.cypher) keeps it; an endpoint a 410 turned off keeps it for when it is
// verified again. No row: the user has no verified endpoint.
MATCH (:User {uid: $uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
WHERE c.verified_at IS NOT NULL
WITH c ORDER BY c.verified_at DESC
LIMIT 1
SET c.include_context = $include_context
RETURN c.value AS url, c.include_context AS include_context, c.disabled_at IS NULL AS enabled
