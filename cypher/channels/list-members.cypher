// The members of each channel in $channel_ids that the viewer belongs to, in joining order.
UNWIND $channel_ids AS wanted
MATCH (c:Channel {id: wanted})
WHERE EXISTS { MATCH (c)-[:HAS_MEMBER]->(:User {uid: $viewer_uid}) }
CALL (c) {
  MATCH (c)-[membership:HAS_MEMBER]->(u:User)
  WITH membership, u ORDER BY membership.joined_at, u.uid
  RETURN collect({uid: u.uid, user_tag: u.user_tag, is_admin: membership.is_admin, joined_at: membership.joined_at})
    AS members
}
RETURN c.id AS channel_id, members
