// A file the viewer may read: they uploaded it, or some message attaching it is visible to them
// (the shared visibility rule). Anything else answers no row, the same as an unknown id.
MATCH (f:File {file_id: $file_id})
WHERE EXISTS { MATCH (f)<-[:UPLOADED]-(:User {uid: $viewer_uid}) }
   OR EXISTS { MATCH (m:Message)-[:ATTACHES]->(f) WHERE {{can_see(m)}} }
RETURN f {.file_id, .filename, .content_type, .size, .sha256} AS file
