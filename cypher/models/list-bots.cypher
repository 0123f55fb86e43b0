// Every bot (is_bot) that a caller could address, with its versions, its bot metadata and its first
// manager (the oldest MANAGES edge, then the lowest uid), ordered by case-folded tag so the model
// list is stable. As in user search, an account that holds no messages.read by the one grant rule
// ({{principal}}: banned, or a bot none of whose managers holds it, or deactivated or deleted) is
// left out: it could neither read what it is sent nor answer.
MATCH (b:User)
WHERE b.is_bot = true AND b.deactivated_at IS NULL
WITH b, {{principal(b)}} AS grant
WHERE 'messages.read' IN grant.scopes
CALL (b) {
  OPTIONAL MATCH (manager:User)-[r:MANAGES]->(b)
  WITH manager, r ORDER BY r.since, manager.uid
  RETURN collect(manager.user_tag)[0] AS manager_tag
}
RETURN b.uid AS uid, b.user_tag AS user_tag, b.display_name AS display_name, b.created_at AS created_at,
       coalesce(b.bot_versions, []) AS versions, coalesce(b.bot_modalities, []) AS modalities,
       coalesce(b.bot_integrations, []) AS integrations, manager_tag
ORDER BY b.tag_folded, b.uid
