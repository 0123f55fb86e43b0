// What a post refers to, checked before anything is written: parents the author can see (with
// their audience, for replies to it: author, CC recipients, and the channels holding it that the
// author belongs to), users named as recipients or mentioned, the author's channel memberships,
// and files the author uploaded.
CALL () {
  OPTIONAL MATCH (:User {uid: $viewer_uid})<-[:HAS_MEMBER]-(channel:Channel)
  RETURN collect(channel.id) AS viewer_channel_ids
}
CALL (viewer_channel_ids) {
  UNWIND $parent_ids AS wanted
  MATCH (m:Message {id: wanted})
  WHERE {{can_see(m)}}
  RETURN collect({
    id: m.id, root_id: m.root_id, author_uid: m.author_uid,
    cc_uids: COLLECT { MATCH (m)-[r:RECEIVED_BY]->(u:User) WHERE r.public RETURN u.uid },
    channel_ids: [(c:Channel)-[:INCLUDES]->(m) WHERE c.id IN viewer_channel_ids | c.id]
  }) AS parents
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
CALL (viewer_channel_ids) {
  UNWIND $channel_ids AS wanted
  MATCH (c:Channel {id: wanted})
  RETURN collect({id: c.id, member: c.id IN viewer_channel_ids}) AS channels
}
CALL () {
  UNWIND $file_ids AS wanted
  MATCH (f:File {file_id: wanted})<-[:UPLOADED]-(:User {uid: $viewer_uid})
  RETURN collect(f.file_id) AS files
}
RETURN parents, by_tag + by_uid AS users, channels, files
