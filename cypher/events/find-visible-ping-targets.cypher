// Which of the named users can see the message: a ping reaches only them (and never changes who can).
MATCH (m:Message {id: $message_id})
UNWIND $uids AS viewer_uid
WITH m, viewer_uid
WHERE {{can_see(m, viewer_uid)}}
RETURN viewer_uid AS uid
