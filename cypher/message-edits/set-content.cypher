// Replaces the content of a message, locked and authorized in this transaction (lock-content). The
// content it replaces becomes the message's newest previous version, with when and by whom it was
// replaced; beyond $keep versions the oldest go. Identical content changes nothing (no version, no
// edited_at) and answers changed = false. Versions are numbered (position) rather than ordered by
// time, so two edits in one millisecond, or a clock that steps back, keep their order.
MATCH (m:Message {id: $id})
WITH m, m.content <> $content AS changed
CALL (m, changed) {
  WITH m, changed
  WHERE changed
  WITH m, coalesce(COLLECT { MATCH (m)-[:PREVIOUS_VERSION]->(old:MessageVersion) RETURN max(old.position) }[0], 0)
         AS last_position
  CREATE (m)-[:PREVIOUS_VERSION]->(:MessageVersion {
    content: m.content,
    replaced_at: datetime($now),
    edited_by_uid: $editor_uid,
    position: last_position + 1
  })
  SET m.content = $content, m.edited_at = datetime($now)
}
CALL (m, changed) {
  WITH m, changed
  WHERE changed
  MATCH (m)-[:PREVIOUS_VERSION]->(version:MessageVersion)
  WITH version
  ORDER BY version.position DESC
  SKIP toInteger($keep)
  DETACH DELETE version
}
RETURN changed
