// Stores the author-curated order of a message's children (null: no custom order).
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
SET m.reply_order = $reply_order
RETURN m.id AS id
