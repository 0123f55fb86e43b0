// Draws the caller's stitch from one visible message to another: one per (from, to, stitcher), so a
// repeated call finds the first one and keeps its time. No row when either end is missing or
// invisible to the caller.
MATCH (from:Message {id: $from_id})
WHERE {{can_see(from)}}
MATCH (to:Message {id: $to_id})
WHERE {{can_see(to)}}
MERGE (from)-[s:STITCH {by: $viewer_uid}]->(to)
  ON CREATE SET s.at = datetime($now)
RETURN s.by AS stitched_by, s.at AS created_at
