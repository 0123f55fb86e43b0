// Sets the public flag of the messages of $ids (authorized in this transaction).
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
SET m.public = $public
RETURN m.id AS id
