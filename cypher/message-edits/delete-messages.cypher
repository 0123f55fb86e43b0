// Deletes the messages of $ids, already authorized in this transaction, with every edge they have
// (authorship, replies, stitches, receivers, bookmarks, reactions, inclusions, attachments) and its
// previous versions (content edits; nothing else points to them). A reply child that survives
// becomes the root of its own thread: its parent_id is cleared and it and every descendant reached
// without passing through a deleted message get its id as root_id. The re-rooting deliberately
// ignores visibility: it is the structure of threads others may see. Last, the participation record
// of every (author, thread) whose messages left or moved is recomputed (schema 020).
CALL () {
  UNWIND $ids AS gone_id
  MATCH (gone:Message {id: gone_id})
  RETURN collect({uid: gone.author_uid, root_id: gone.root_id}) AS left_threads
}
CALL () {
  UNWIND $ids AS gone_id
  MATCH (:Message {id: gone_id})-[:REPLY]->(orphan:Message)
  WHERE NOT orphan.id IN $ids
  SET orphan.parent_id = null
  WITH DISTINCT orphan
  MATCH path = (orphan)-[:REPLY*0..]->(d:Message)
  WHERE none(n IN nodes(path) WHERE n.id IN $ids)
  WITH orphan, d, d.root_id AS old_root
  SET d.root_id = orphan.id
  RETURN count(DISTINCT orphan) AS rerooted,
         collect({uid: d.author_uid, root_id: old_root}) + collect({uid: d.author_uid, root_id: orphan.id})
           AS moved_threads
}
CALL () {
  UNWIND $ids AS gone_id
  MATCH (m:Message {id: gone_id})
  WHERE {{can_see(m)}}
  CALL (m) {
    MATCH (m)-[:PREVIOUS_VERSION]->(version:MessageVersion)
    DETACH DELETE version
  }
  DETACH DELETE m
  RETURN count(*) AS deleted
}
CALL (left_threads, moved_threads) {
  UNWIND left_threads + moved_threads AS pair
  WITH DISTINCT pair
  WHERE pair.uid IS NOT NULL AND pair.root_id IS NOT NULL
  WITH pair
  ORDER BY pair.uid, pair.root_id
  {{refresh_participation(pair)}}
}
RETURN rerooted, deleted
