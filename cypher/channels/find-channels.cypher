// Channels by id as the viewer sees them: only those the viewer belongs to come back.
UNWIND $ids AS wanted
MATCH (c:Channel {id: wanted})-[membership:HAS_MEMBER]->(:User {uid: $viewer_uid})
RETURN c {.id, .display_name, .description, .created_at, .created_by} AS channel,
       membership.is_admin AS is_admin,
       COUNT { (c)-[:HAS_MEMBER]->(:User) } AS member_count
