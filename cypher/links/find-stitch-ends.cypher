// Both ends of a stitch as the caller sees them, with who may moderate stitches out of the FROM
// message (its author and the author's managers). No row when either end is missing or invisible.
MATCH (from:Message {id: $from_id})
WHERE {{can_see(from)}}
MATCH (to:Message {id: $to_id})
WHERE {{can_see(to)}}
OPTIONAL MATCH (manager:User)-[:MANAGES]->(:User {uid: from.author_uid})
RETURN from.author_uid AS author_uid, collect(manager.uid) AS manager_uids
