// What a ping names, read inside its write transaction: whether the pinger can see the message, and
// the named users (by folded tag or uid).
OPTIONAL MATCH (m:Message {id: $message_id})
WHERE {{can_see(m)}}
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
RETURN m IS NOT NULL AS visible, by_tag + by_uid AS users
