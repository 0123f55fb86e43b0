// Adds a subject to a message that has none; a subject is never changed once set, so a message
// that gained one in the meantime is left alone (and no row comes back).
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}} AND m.subject IS NULL
SET m.subject = $subject
RETURN m.id AS id
