// Users whose tag starts with $prefix (lower-case), then users with a display name matching $lucene
// (word prefixes, or null for none), at most $limit in all. Tag hits come in tag order, so the exact
// tag, a prefix of every other hit, comes first; name hits (at most $candidates of them, as the
// full-text index picks them) in lower-cased display-name order, then tag. An account that holds no
// messages.read, as the one grant rule ({{principal}}) decides it, is banned and left out. Each hit
// comes with whether $viewer_uid manages it (what its UserOutput may show, managed-user-policy.ts),
// judged here on the page only.
CALL {
  // The user_tag_folded range index seeks the prefix in tag order: no sort, and the LIMIT ends the scan.
  MATCH (u:User)
  WHERE u.tag_folded STARTS WITH $prefix
  WITH u, {{principal(u)}} AS grant
  WHERE 'messages.read' IN grant.scopes
  WITH u
  ORDER BY u.tag_folded
  LIMIT $limit
  RETURN u, 0 AS rank, u.tag_folded AS sort_key
UNION ALL
  WITH $lucene AS lucene
  WHERE lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('user_display_name', lucene, {limit: $candidates}) YIELD node AS u
  WITH u
  WHERE NOT u.tag_folded STARTS WITH $prefix
  WITH u, {{principal(u)}} AS grant
  WHERE 'messages.read' IN grant.scopes
  WITH u, toLower(u.display_name) AS name
  ORDER BY name, u.tag_folded
  LIMIT $limit
  RETURN u, 1 AS rank, name AS sort_key
}
WITH u, rank, sort_key
ORDER BY rank, sort_key, u.tag_folded
LIMIT $limit
RETURN u {.*} AS user, EXISTS { MATCH (:User {uid: $viewer_uid})-[:MANAGES]->(u) } AS viewer_manages
