// Accounts a password login may mean: by case-folded tag, or every account that has verified the
// email. An address only typed at registration proves nothing, so it never names an account here.
OPTIONAL MATCH (by_tag:User {tag_folded: $tag_folded})
OPTIONAL MATCH (by_email:User)-[:HAS_CONTACT]->(c:Contact {kind: 'email', value: $email})
WHERE c.verified_at IS NOT NULL
WITH collect(DISTINCT by_tag) + collect(DISTINCT by_email) AS users
UNWIND users AS u
WITH DISTINCT u
WHERE u.password_hash IS NOT NULL
RETURN u.uid AS uid, u.password_hash AS password_hash
