// Under the message's lock (lock-message.cypher): the viewer's own reactions on it, and the
// different reactions on it the viewer is shown, which the caps are judged on.
MATCH (m:Message {id: $id})
RETURN COLLECT { MATCH (:User {uid: $viewer_uid})-[mine:REACTED]->(m) RETURN mine.reaction } AS mine,
       COLLECT { MATCH (:User)-[r:REACTED]->(m) WHERE {{reaction_shown(r)}} RETURN DISTINCT r.reaction } AS shown
