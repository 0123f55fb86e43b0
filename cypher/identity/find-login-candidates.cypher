// Accounts a password login may mean: by case-folded tag, or every account holding the email.
OPTIONAL MATCH (by_tag:User {tag_folded: $tag_folded})
OPTIONAL MATCH (by_email:User)-[:HAS_CONTACT]->(:Contact {kind: 'email', value: $email})
WITH collect(DISTINCT by_tag) + collect(DISTINCT by_email) AS users
UNWIND users AS u
WITH DISTINCT u
WHERE u.password_hash IS NOT NULL
RETURN u.uid AS uid, u.password_hash AS password_hash
