// A proven endpoint: uses the challenge up and makes the URL the user's one endpoint contact, with a
// new signing secret. A user has at most one: a new URL takes over the existing node (so what the
// webhook dispatcher reads, `value`, `secret`, `verified_at`, `disabled_at`, changes in one place),
// and verifying again turns an endpoint that answered 410 back on. The user's write lock is taken
// first, so two verifications of one user cannot both create a node. The new secret replaces every
// other at once, a rotation's previous one too (webhooks/rotate-secret.cypher).
MATCH (c:VerificationChallenge {id: $challenge_id})
MATCH (u:User {uid: $uid})
DELETE c
WITH u
SET u.contacts_changed_at = datetime($now)
MERGE (u)-[:HAS_CONTACT]->(e:Contact {kind: 'endpoint'})
  ON CREATE SET e.created_at = datetime($now), e.value = $url
WITH e, e.value = $url AS same_url
SET e.created_at = CASE WHEN same_url THEN e.created_at ELSE datetime($now) END,
    e.value = $url, e.secret = $secret, e.verified_at = datetime($now),
    e.disabled_at = null, e.disabled_reason = null,
    e.previous_secret = null, e.previous_secret_expires_at = null
RETURN e {.kind, .value, .verified_at} AS contact
