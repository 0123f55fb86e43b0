// Whether a channel exists, and whether (and how) the viewer belongs to it.
MATCH (c:Channel {id: $channel_id})
OPTIONAL MATCH (c)-[membership:HAS_MEMBER]->(:User {uid: $viewer_uid})
RETURN c.id AS id, membership IS NOT NULL AS member, coalesce(membership.is_admin, false) AS is_admin
