// Thread page: the messages the viewer may see in the thread (same root_id) of the origin, oldest
// first (created_at, then id), one page (+1 to tell has_more). No row when the origin does not
// exist or the viewer may not see it (the use case answers 404 either way). The thread is read in
// order from the (root_id, created_at) index (ordering by the equality property first keeps the
// index order), each entry judged by the visibility rule, and the read stops once $skip + $take
// visible messages are found: the cost grows with the page and the invisible messages passed over,
// not with the thread's length. Invisible messages are never counted, so they move no page bound.
MATCH (origin:Message {id: $message_id})
WHERE {{can_see(origin)}}
CALL (origin) {
  MATCH (t:Message)
  WHERE t.root_id = origin.root_id AND t.created_at IS NOT NULL AND {{can_see(t)}}
  WITH t
  ORDER BY t.root_id, t.created_at, t.id
  SKIP $skip LIMIT $take
  RETURN collect(t.id) AS ids
}
RETURN ids
