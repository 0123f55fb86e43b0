// Takes the write lock of every message in the reply subtrees of $ids (the messages themselves
// included) and answers their ids. A reply is created with a lock on its parent, so once a subtree
// is locked whole no reply can join it until this transaction ends; the caller repeats the call
// until it locks nothing new, since replies committed while the walk ran may have been passed over.
UNWIND $ids AS wanted
MATCH (:Message {id: wanted})-[:REPLY*0..]->(d:Message)
WITH DISTINCT d
SET d.subtree_locked_at = datetime()
RETURN d.id AS id
