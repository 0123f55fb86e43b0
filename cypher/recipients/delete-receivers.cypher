// Takes entries off receiver edges in one statement; answers the pairs where an entry went. With
// pair.altogether (the recipient itself, the author or the author's manager) the edge goes, with its
// UNREAD twin (schema 019). Otherwise only the remover's own entry goes (decision 022): the one on
// top uncovers the BCC entry laid under it last, if any, else the edge goes; a covered one is just
// dropped from covered_by and covered_at. Then recomputes whether each touched message's author
// still addressed someone else in its thread (participation records, schema 020), last, in
// (uid, root_id) order.
UNWIND $pairs AS pair
MATCH (m:Message {id: pair.message_id})-[r:RECEIVED_BY]->(u:User {uid: pair.uid})
WITH m, r, u, pair, coalesce(r.covered_by, []) AS covered_by, coalesce(r.covered_at, []) AS covered_at
WITH m, r, u, pair, covered_by, covered_at,
     CASE WHEN pair.altogether OR (r.added_by = $viewer_uid AND size(covered_by) = 0) THEN 'edge'
          WHEN r.added_by = $viewer_uid THEN 'top'
          WHEN $viewer_uid IN covered_by THEN 'covered'
     END AS gone,
     [i IN range(0, size(covered_by) - 1) WHERE covered_by[i] = $viewer_uid][0] AS at
WHERE gone IS NOT NULL
CALL (m, r, u, gone, covered_by, covered_at, at) {
  WITH m, r, u, gone WHERE gone = 'edge'
  OPTIONAL MATCH (u)-[unread:UNREAD]->(m)
  DELETE r, unread
  RETURN DISTINCT gone AS done
  UNION ALL
  WITH r, covered_by, covered_at, gone WHERE gone = 'top'
  WITH r, gone, covered_by[..-1] AS still_by, covered_at[..-1] AS still_at, last(covered_by) AS uncovered_by,
       last(covered_at) AS uncovered_at
  SET r.public = false, r.added_by = CASE WHEN uncovered_by = '' THEN null ELSE uncovered_by END,
      r.added_at = uncovered_at,
      r.covered_by = CASE WHEN size(still_by) > 0 THEN still_by END,
      r.covered_at = CASE WHEN size(still_at) > 0 THEN still_at END
  RETURN gone AS done
  UNION ALL
  WITH r, covered_by, covered_at, at, gone WHERE gone = 'covered'
  WITH r, gone, covered_by[..at] + covered_by[at + 1..] AS still_by, covered_at[..at] + covered_at[at + 1..] AS still_at
  SET r.covered_by = CASE WHEN size(still_by) > 0 THEN still_by END,
      r.covered_at = CASE WHEN size(still_at) > 0 THEN still_at END
  RETURN gone AS done
}
WITH collect(DISTINCT {message_id: pair.message_id, uid: pair.uid}) AS removed,
     collect(DISTINCT {uid: m.author_uid, root_id: m.root_id}) AS touched_threads
CALL (touched_threads) {
  UNWIND touched_threads AS thread
  WITH thread
  WHERE thread.uid IS NOT NULL AND thread.root_id IS NOT NULL
  ORDER BY thread.uid, thread.root_id
  {{refresh_participation(thread)}}
}
UNWIND removed AS edge
RETURN edge.message_id AS message_id, edge.uid AS uid
