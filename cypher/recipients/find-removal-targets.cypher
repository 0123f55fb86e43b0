// What a remove-recipients request touches, read inside its write transaction: whether the recipient
// exists, the named messages the caller can see, with $propagate their reply descendants that hold an
// edge to the recipient (walking down only through messages the caller can see), and for each of
// these the author and the author's managers (who may remove any recipient of the message).
OPTIONAL MATCH (recipient:User {uid: $recipient_uid})
CALL () {
  UNWIND $message_ids AS wanted
  MATCH (m:Message {id: wanted})
  WHERE {{can_see(m)}}
  RETURN collect(m.id) AS named
}
CALL (named) {
  UNWIND CASE WHEN $propagate THEN named ELSE [] END AS id
  MATCH (m:Message {id: id})
  MATCH path = (m)-[:REPLY*1..]->(d:Message)
  WHERE all(n IN nodes(path)[1..] WHERE {{can_see(n)}})
    AND EXISTS { MATCH (d)-[:RECEIVED_BY]->(:User {uid: $recipient_uid}) }
  WITH DISTINCT d
  ORDER BY d.created_at, d.id
  RETURN collect(d.id) AS descendants
}
CALL (named, descendants) {
  UNWIND named + descendants AS id
  MATCH (m:Message {id: id})
  CALL (m) {
    OPTIONAL MATCH (manager:User)-[:MANAGES]->(:User {uid: m.author_uid})
    RETURN collect(manager.uid) AS manager_uids
  }
  RETURN collect({message_id: m.id, author_uid: m.author_uid, manager_uids: manager_uids}) AS authorship
}
RETURN recipient IS NOT NULL AS recipient_exists, named, descendants, authorship
