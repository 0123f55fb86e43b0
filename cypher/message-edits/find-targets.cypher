// The messages of $ids the viewer may see, with what the "author or manager" check and the
// subject rule need. Ids missing here are missing or invisible (the same 404).
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
RETURN m.id AS id, m.author_uid AS author_uid, m.subject AS subject,
       COLLECT { MATCH (manager:User)-[:MANAGES]->(:User {uid: m.author_uid}) RETURN manager.uid } AS manager_uids
