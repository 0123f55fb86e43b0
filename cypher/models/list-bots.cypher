// Every bot with its versions and its first manager (the oldest MANAGES edge, then the lowest uid),
// ordered by case-folded tag so the model list is stable.
// A deactivated or deleted bot is not offered.
MATCH (b:User)
WHERE b.is_bot = true AND b.deactivated_at IS NULL
CALL (b) {
  OPTIONAL MATCH (manager:User)-[r:MANAGES]->(b)
  WITH manager, r ORDER BY r.since, manager.uid
  RETURN collect(manager.user_tag)[0] AS manager_tag
}
RETURN b.user_tag AS user_tag, b.created_at AS created_at, coalesce(b.bot_versions, []) AS versions,
       manager_tag
ORDER BY b.tag_folded, b.uid
