// A reply's thread is its parent's, read after the REPLY edge was created: the edge holds a lock on
// the parent, so a deletion re-rooting the parent's thread either committed before (and this reads
// its new root) or waits for this post (and then re-roots these replies with the rest).
MATCH (parent:Message {id: $parent_id})
UNWIND $message_ids AS id
MATCH (m:Message {id: id})
SET m.root_id = parent.root_id
RETURN count(m) AS adopted
