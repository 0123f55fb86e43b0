// THE rule of a root as the viewer ($viewer_uid) sees it, used as {{seen_as_root(m)}}: true when
// the viewer may see no reply parent of __m. A message whose parent the viewer may not see is a
// root to that viewer, exactly as a message without a parent is, so that no answer tells a hidden
// parent from none (security review 2026-12-02, #4): a bot's context origin (judge-context-origin,
// read-context) and the root_id a message shows (shown-root.cypher, message-output.ts).
NOT EXISTS { MATCH (__parent:Message)-[:REPLY]->(__m) WHERE {{can_see(__parent)}} }
