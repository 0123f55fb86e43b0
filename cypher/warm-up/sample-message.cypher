// The newest message, its author, another user and one of the author's channels: the warm-up
// (components/warm-up) posts and reads as that author on what the store holds, so that the
// statements are planned as requests will run them. No row on an empty store.
MATCH (m:Message)
WHERE m.created_at IS NOT NULL
WITH m ORDER BY m.created_at DESC LIMIT 1
MATCH (author:User {uid: m.author_uid})
OPTIONAL CALL (author) {
  MATCH (other:User)
  WHERE other <> author
  RETURN other.uid AS other_uid
  LIMIT 1
}
OPTIONAL CALL (author) {
  MATCH (c:Channel)-[:HAS_MEMBER]->(author)
  RETURN c.id AS channel_id
  LIMIT 1
}
RETURN m.id AS message_id, author.uid AS uid, author.user_tag AS user_tag, other_uid, channel_id
