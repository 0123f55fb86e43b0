// A new channel with its creator as its first admin member. The channel id constraint makes an id
// clash fail the transaction; the repository retries with a new id.
MATCH (creator:User {uid: $creator_uid})
CREATE (c:Channel {
  id: $id, display_name: $display_name, description: $description,
  created_at: datetime($now), created_by: $creator_uid
})
CREATE (c)-[membership:HAS_MEMBER {is_admin: true, joined_at: datetime($now), added_by: $creator_uid}]->(creator)
RETURN c {.id, .display_name, .description, .created_at, .created_by} AS channel,
       membership.is_admin AS is_admin,
       COUNT { (c)-[:HAS_MEMBER]->(:User) } AS member_count
