// Whether message $message_id may be the context origin of the user $viewer_uid (a bot's
// context_origin_id, docs/decisions/026-conversation-context.md): a row only when that user may see
// it (the one visibility rule, so an invisible message answers as a missing one), telling whether
// it is a root (no reply parent).
MATCH (m:Message {id: $message_id})
WHERE {{can_see(m)}}
RETURN NOT EXISTS { (:Message)-[:REPLY]->(m) } AS is_root
