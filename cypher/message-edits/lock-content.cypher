// Takes the write lock of a message the viewer can see before its content is edited, as a statement
// of its own: the statements after it (the authorship check, set-content) read the content under
// the lock, so two edits in parallel each keep the content the other replaced, one after the other.
// No row when the message is missing or invisible.
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
SET m.content_locked_at = datetime($now)
RETURN m.id AS id
