// Replaces a message's channels among those the viewer belongs to: inclusions in the viewer's
// channels that are not in $channel_ids go, the targets are merged (an existing inclusion keeps its
// adder), and inclusions in channels the viewer is not in are left alone. Answers the viewer's
// channels holding the message before and after.
MATCH (m:Message {id: $message_id})
CALL (m) {
  OPTIONAL MATCH (c:Channel)-[:INCLUDES]->(m)
  WHERE EXISTS { MATCH (c)-[:HAS_MEMBER]->(:User {uid: $viewer_uid}) }
  RETURN collect(c.id) AS before
}
CALL (m) {
  OPTIONAL MATCH (c:Channel)-[inclusion:INCLUDES]->(m)
  WHERE NOT c.id IN $channel_ids AND EXISTS { MATCH (c)-[:HAS_MEMBER]->(:User {uid: $viewer_uid}) }
  DELETE inclusion
  RETURN count(inclusion) AS removed
}
CALL (m) {
  UNWIND $channel_ids AS wanted
  MATCH (c:Channel {id: wanted})
  MERGE (c)-[inclusion:INCLUDES]->(m)
    ON CREATE SET inclusion.added_by = $viewer_uid, inclusion.added_at = datetime($now)
  RETURN count(inclusion) AS included
}
CALL (m) {
  OPTIONAL MATCH (c:Channel)-[:INCLUDES]->(m)
  WHERE EXISTS { MATCH (c)-[:HAS_MEMBER]->(:User {uid: $viewer_uid}) }
  WITH c ORDER BY c.id
  RETURN collect(c.id) AS channel_ids
}
RETURN before, channel_ids, removed, included
