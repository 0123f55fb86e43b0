// Removes receiver edges in one statement; answers the ones it removed.
UNWIND $pairs AS pair
MATCH (:Message {id: pair.message_id})-[r:RECEIVED_BY]->(:User {uid: pair.uid})
DELETE r
RETURN DISTINCT pair.message_id AS message_id, pair.uid AS uid
