// Adds a user to a channel, or changes an existing member's admin flag ($is_admin null keeps it;
// a new member is not an admin unless asked).
MATCH (c:Channel {id: $channel_id})
MATCH (u:User {uid: $uid})
MERGE (c)-[membership:HAS_MEMBER]->(u)
  ON CREATE SET membership.is_admin = coalesce($is_admin, false),
                membership.joined_at = datetime($now),
                membership.added_by = $viewer_uid
  ON MATCH SET membership.is_admin = coalesce($is_admin, membership.is_admin)
RETURN u.uid AS uid, u.user_tag AS user_tag, membership.is_admin AS is_admin, membership.joined_at AS joined_at
