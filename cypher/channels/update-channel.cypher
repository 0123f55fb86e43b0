// Writes the changed fields of a channel ($changes holds only what was sent; a null description
// removes it) and answers it as the viewer sees it.
MATCH (c:Channel {id: $channel_id})
SET c += $changes
WITH c
MATCH (c)-[membership:HAS_MEMBER]->(:User {uid: $viewer_uid})
RETURN c {.id, .display_name, .description, .created_at, .created_by} AS channel,
       membership.is_admin AS is_admin,
       COUNT { (c)-[:HAS_MEMBER]->(:User) } AS member_count
