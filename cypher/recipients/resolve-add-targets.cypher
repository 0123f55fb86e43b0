// What an add-recipients request touches, read inside its write transaction: the named messages the
// caller can see, the messages propagation adds ($strategy ANCESTORS: reply ancestors up to the first
// one the caller cannot see; TREE: every visible message of the same threads), and the named users.
CALL () {
  UNWIND $message_ids AS wanted
  MATCH (m:Message {id: wanted})
  WHERE {{can_see(m)}}
  RETURN collect(m.id) AS named
}
CALL (named) {
  UNWIND CASE WHEN $strategy = 'ANCESTORS' THEN named ELSE [] END AS id
  MATCH (m:Message {id: id})
  MATCH path = (a:Message)-[:REPLY*1..]->(m)
  // Every message on the way up, the ancestor included, must be visible: the walk stops at the first
  // invisible parent.
  WHERE all(n IN nodes(path)[0..-1] WHERE {{can_see(n)}})
  RETURN collect(a) AS ancestors
}
CALL (named) {
  UNWIND CASE WHEN $strategy = 'TREE' THEN named ELSE [] END AS id
  MATCH (m:Message {id: id})
  WITH DISTINCT m.root_id AS root_id
  MATCH (t:Message {root_id: root_id})
  WHERE {{can_see(t)}}
  RETURN collect(t) AS thread
}
CALL (ancestors, thread) {
  UNWIND ancestors + thread AS p
  WITH DISTINCT p
  ORDER BY p.created_at, p.id
  RETURN collect(p.id) AS propagated
}
CALL () {
  UNWIND $tags AS tag
  MATCH (u:User {tag_folded: tag})
  RETURN collect({key: 'tag:' + tag, uid: u.uid}) AS by_tag
}
CALL () {
  UNWIND $uids AS wanted
  MATCH (u:User {uid: wanted})
  RETURN collect({key: 'uid:' + wanted, uid: u.uid}) AS by_uid
}
RETURN named, propagated, by_tag + by_uid AS users
