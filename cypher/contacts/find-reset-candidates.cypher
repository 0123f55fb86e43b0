// Accounts a password reset may mean. With a tag: that account. With only an email: every account
// that has verified it (an unverified address proves nothing, so claiming someone's address at
// registration neither receives their codes nor makes their reset ambiguous). Managed users have no
// password and never count. Each comes with its verified emails, latest verified first.
CALL () {
  MATCH (u:User {tag_folded: $tag_folded})
  RETURN u
  UNION
  MATCH (u:User)-[:HAS_CONTACT]->(c:Contact {kind: 'email', value: $email})
  WHERE $tag_folded IS NULL AND c.verified_at IS NOT NULL
  RETURN u
}
WITH u
WHERE NOT coalesce(u.is_managed, false) AND u.password_hash IS NOT NULL
OPTIONAL MATCH (u)-[:HAS_CONTACT]->(e:Contact {kind: 'email'})
WHERE e.verified_at IS NOT NULL
WITH u, e
ORDER BY e.verified_at DESC
RETURN u.uid AS uid, collect(e.value) AS verified_emails
