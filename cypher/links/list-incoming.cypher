// One page (plus one, to tell has_more) of the visible messages stitched to $message_id, newest stitch
// first, each message once; with $show_all stitches by anyone count, else only the caller's.
// No row when the message itself is missing or invisible.
MATCH (m:Message {id: $message_id})
WHERE {{can_see(m)}}
CALL (m) {
  MATCH (other:Message)-[s:STITCH]->(m)
  WHERE ($show_all OR s.by = $viewer_uid) AND {{can_see(other)}}
  WITH other, max(s.at) AS latest
  ORDER BY latest DESC, other.id
  SKIP $skip
  LIMIT $limit
  RETURN collect(other.id) AS ids
}
RETURN ids
