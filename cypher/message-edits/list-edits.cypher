// The previous versions of a message the viewer can see (what each edit replaced, when, and by
// whom), by position (oldest first). No row when the message is missing or invisible. An editor
// whose account is gone comes back with a null user_tag.
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
RETURN m.id AS id,
       [(m)-[:PREVIOUS_VERSION]->(version:MessageVersion)
        | {content: version.content, position: version.position, edited_ms: version.replaced_at.epochMillis,
           editor_uid: version.edited_by_uid,
           editor_tag: COLLECT { MATCH (editor:User {uid: version.edited_by_uid}) RETURN editor.user_tag }[0]}]
         AS versions
