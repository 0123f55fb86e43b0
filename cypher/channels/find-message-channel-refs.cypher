// Before replacing a message's channels: whether the viewer may see the message, and each target
// channel that exists with whether the viewer belongs to it.
OPTIONAL MATCH (m:Message {id: $message_id})
WHERE {{can_see(m)}}
CALL () {
  UNWIND $channel_ids AS wanted
  MATCH (c:Channel {id: wanted})
  RETURN collect({id: c.id, member: EXISTS { MATCH (c)-[:HAS_MEMBER]->(:User {uid: $viewer_uid}) }}) AS channels
}
RETURN m IS NOT NULL AS visible, channels
