// A right code for an email or phone: uses the challenge up, marks the contact verified (creating it,
// or the unverified one given at registration), and on the account's first verified email or phone
// adds the verified scopes to its grant. Only the first: a scope an administrator took away does not
// come back by verifying another address; and never once an administrator set the account's scopes
// (scopes_by_admin, security finding #4): an admin's grant, a ban included, is final. Sessions
// without a restriction of their own (no requested set, not minted from a capped key) froze the old
// grant at mint time; they take the new grant here, in the same transaction, so the session that
// verified can write at once. Restricted sessions keep what they froze.
MATCH (c:VerificationChallenge {id: $challenge_id})
MATCH (u:User {uid: $uid})
DELETE c
WITH u
OPTIONAL MATCH (u)-[:HAS_CONTACT]->(prior:Contact)
WHERE prior.kind IN ['email', 'phone'] AND prior.verified_at IS NOT NULL
WITH u, count(prior) = 0 AS first
MERGE (u)-[:HAS_CONTACT]->(contact:Contact {kind: $kind, value: $value})
  ON CREATE SET contact.created_at = datetime($now)
SET contact.verified_at = datetime($now)
WITH u, contact, first AND NOT coalesce(u.scopes_by_admin, false) AS first
SET u.scopes = CASE
  WHEN first THEN reduce(acc = coalesce(u.scopes, []), s IN $grant | CASE WHEN s IN acc THEN acc ELSE acc + s END)
  ELSE u.scopes
END
WITH u, contact, first
OPTIONAL MATCH (u)<-[:SESSION_OF]-(s:Session)
WHERE first AND s.revoked_at IS NULL AND s.expires_at > datetime($now) AND s.requested IS NULL
  AND NOT EXISTS { (s)-[:MINTED_FROM]->(k:ApiKey) WHERE k.scopes_cap IS NOT NULL }
SET s.permissions = u.scopes
WITH contact, first, count(s) AS refreshed
RETURN contact {.kind, .value, .verified_at} AS contact, first AS granted, refreshed
