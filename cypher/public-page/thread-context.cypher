// The public page's context for message $id, as seen by $viewer_uid (null: the anonymous reader, who
// sees public messages only): the chain of reply ancestors the viewer may see, nearest first until
// the first one they may not see (nothing above it is returned, not even whether it exists), plus
// the display names of the authors involved. No row when the message itself is not visible.
// A message has at most one reply parent, so the upward path is a chain; it is cut at 100 hops
// (the traversal's own maximum depth), which bounds the work on a pathological thread.
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
CALL (m) {
  MATCH path = (a:Message)-[:REPLY*1..100]->(m)
  WITH a, length(path) AS distance
  ORDER BY distance
  RETURN collect({id: a.id, visible: {{can_see(a)}}}) AS above
}
WITH m, reduce(walk = {open: true, ids: []}, step IN above |
  CASE WHEN walk.open AND step.visible THEN {open: true, ids: [step.id] + walk.ids}
       ELSE {open: false, ids: walk.ids} END).ids + [m.id] AS ids
CALL (ids) {
  UNWIND ids AS shown_id
  MATCH (shown:Message {id: shown_id})
  MATCH (author:User {uid: shown.author_uid})
  RETURN collect(DISTINCT author {.uid, .display_name}) AS authors
}
RETURN ids, authors
