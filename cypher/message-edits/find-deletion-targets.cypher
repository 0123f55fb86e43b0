// What deleting the messages of $ids involves: each visible one with its authorship and, when
// $with_descendants, its whole reply subtree, each descendant with its authorship and whether the
// viewer may see it (the caller must be allowed to delete every one of them).
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
CALL (m) {
  OPTIONAL MATCH (m)-[:REPLY*1..]->(d:Message)
  WHERE $with_descendants
  WITH DISTINCT d
  WHERE d IS NOT NULL
  RETURN collect({
    id: d.id,
    author_uid: d.author_uid,
    visible: {{can_see(d)}},
    manager_uids: COLLECT { MATCH (manager:User)-[:MANAGES]->(:User {uid: d.author_uid}) RETURN manager.uid }
  }) AS descendants
}
RETURN m.id AS id, m.author_uid AS author_uid,
       COLLECT { MATCH (manager:User)-[:MANAGES]->(:User {uid: m.author_uid}) RETURN manager.uid } AS manager_uids,
       descendants
