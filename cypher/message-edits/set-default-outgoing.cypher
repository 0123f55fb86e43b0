// Stores the child that continues a message by default (null: none).
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
SET m.default_outgoing = $default_outgoing
RETURN m.id AS id
