// Whether message $message_id may be the context origin of the user $viewer_uid (a bot's
// context_origin_id, docs/decisions/026-conversation-context.md): a row only when that user may see
// it (the one visibility rule, so an invisible message answers as a missing one), telling whether
// it is a root as that user sees it (fragments/seen-as-root.cypher: no reply parent it may see), so
// that a parent hidden from the bot answers exactly as no parent (security review 2026-12-02, #4).
MATCH (m:Message {id: $message_id})
WHERE {{can_see(m)}}
RETURN {{seen_as_root(m)}} AS is_root
