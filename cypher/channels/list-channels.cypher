// The channels the viewer belongs to, by name (case-insensitive), then id.
MATCH (:User {uid: $viewer_uid})<-[membership:HAS_MEMBER]-(c:Channel)
RETURN c {.id, .display_name, .description, .created_at, .created_by} AS channel,
       membership.is_admin AS is_admin,
       COUNT { (c)-[:HAS_MEMBER]->(:User) } AS member_count
ORDER BY toLower(c.display_name), c.id
