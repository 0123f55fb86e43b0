// Removes the viewer's reaction, under the message's lock; answers 0 when there was none.
OPTIONAL MATCH (:User {uid: $viewer_uid})-[r:REACTED {reaction: $reaction}]->(:Message {id: $id})
DELETE r
RETURN count(r) AS removed
