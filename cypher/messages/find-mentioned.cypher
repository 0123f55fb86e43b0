// Which mentioned users can see which new message (read inside the post's transaction, after the
// messages and their edges exist): a mention pings only those, and never grants visibility.
UNWIND $pairs AS pair
MATCH (m:Message {id: pair.message_id})
WITH m, pair.uid AS viewer_uid
WHERE {{can_see(m, viewer_uid)}}
RETURN m.id AS message_id, viewer_uid AS uid
