// The bot a chat completion names by its tag (the id GET /v1/models lists), with why it cannot answer
// if it cannot: deactivated, or holding no messages.read by the one grant rule ({{principal}}: banned,
// or none of its managers holds it). No row when no bot has the tag (a person's tag is no model).
MATCH (b:User {tag_folded: $tag_folded})
WHERE b.is_bot = true AND b.deleted_at IS NULL
WITH b, {{principal(b)}} AS grant
RETURN b.uid AS uid, b.user_tag AS user_tag, coalesce(b.bot_versions, []) AS versions,
       b.deactivated_at IS NOT NULL AS deactivated,
       NOT ('messages.read' IN grant.scopes AND 'messages.write' IN grant.scopes) AS banned
