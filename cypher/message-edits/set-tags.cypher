// Replaces the tag set of the messages of $ids the viewer may see; the ids answered are the ones
// changed, any other is missing or invisible.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
SET m.tags = $tags
RETURN m.id AS id
