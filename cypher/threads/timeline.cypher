// Timeline: ids of every message the viewer may see, newest first, one page (+1 to tell has_more).
// The visibility rule's four grounds are walked as four branches, each ordered and cut at $cap
// (= skip + limit + 1) before the merge: the authored and public branches read the
// (author_uid, created_at) and (public, created_at) indexes in order and stop after $cap entries
// (ordering by the index's equality property first is what lets the planner use its order), the
// receivers branch reads the (receiver_uid, created_at) index of the receivers edges the same way
// (schema 021; the hint keeps a plan made on a young store from scanning instead), and the channel
// branch expands only the viewer's own memberships. The top of the union is
// within the branches' tops, so nothing sorts more than 4 × $cap rows. Each branch is one ground
// of the rule, written as cypher/fragments/can-see.cypher writes it, so every merged row is visible
// and is not judged again (judging them again was a sixth of this query's time); a change to the
// rule must change these branches too (test/security/visibility-model.int.test.ts compares the
// timeline with a model of the rule). $since bounds every branch from below (the epoch for the
// timeline view, the cutoff for the export).
CALL () {
  MATCH (m:Message)
  WHERE m.author_uid = $viewer_uid AND m.created_at >= datetime($since)
  RETURN m ORDER BY m.author_uid DESC, m.created_at DESC, m.id DESC LIMIT $cap
  UNION
  MATCH (m:Message)-[r:RECEIVED_BY]->()
  USING INDEX r:RECEIVED_BY(receiver_uid, created_at)
  WHERE r.receiver_uid = $viewer_uid AND r.created_at >= datetime($since)
  RETURN m ORDER BY r.receiver_uid DESC, r.created_at DESC, m.id DESC LIMIT $cap
  UNION
  MATCH (:User {uid: $viewer_uid})<-[:HAS_MEMBER]-(:Channel)-[:INCLUDES]->(m:Message)
  WHERE m.created_at >= datetime($since)
  RETURN DISTINCT m ORDER BY m.created_at DESC, m.id DESC LIMIT $cap
  UNION
  MATCH (m:Message)
  WHERE m.public = true AND m.created_at >= datetime($since)
  RETURN m ORDER BY m.public DESC, m.created_at DESC, m.id DESC LIMIT $cap
}
RETURN m.id AS id
ORDER BY m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
