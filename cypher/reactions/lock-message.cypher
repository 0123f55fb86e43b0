// Takes the write lock of a message the viewer can see before its reactions change, as a statement
// of its own: the statements after it read and write the message's reactions under the lock, so
// identical adds in parallel make one edge and one event, and the caps hold. Answers who is told of
// the change: the author, and the adder of the viewer's BCC entry (null without one, and for the
// author, whose reaction no BCC hides).
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
SET m.reactions_locked_at = datetime($now)
RETURN m.id AS id, m.author_uid AS author_uid,
       CASE WHEN m.author_uid = $viewer_uid THEN null
            ELSE COLLECT { MATCH (m)-[bcc:RECEIVED_BY {public: false}]->(:User {uid: $viewer_uid})
                           RETURN bcc.added_by }[0]
       END AS bcc_added_by
