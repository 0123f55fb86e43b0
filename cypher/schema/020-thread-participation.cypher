// Inbox and history must not read everything a user ever wrote. A participation record
// (:Participation {uid, root_id}) is kept per (author, thread) by every writer that changes what an
// author wrote in a thread: last_wrote_at is the author's newest message there, addressed whether
// any of those messages has a recipient other than the author. Post and recipient adds only raise
// them; deletion, re-rooting and recipient removal recompute them (fragment refresh-participation).
// A record is a node keyed by properties, not an edge to the root: making or changing it locks no
// user and no message, so it adds no lock that another writer could wait on in the opposite order.
// History reads the (uid, last_wrote_at) index newest first; the inbox reads a user's addressed
// records by uid. This version builds the records of messages written before it, in batches.
CREATE CONSTRAINT participation_key IF NOT EXISTS FOR (p:Participation) REQUIRE (p.uid, p.root_id) IS UNIQUE;
CREATE INDEX participation_latest IF NOT EXISTS FOR (p:Participation) ON (p.uid, p.last_wrote_at);
MATCH (m:Message)
WHERE m.author_uid IS NOT NULL AND m.root_id IS NOT NULL AND m.created_at IS NOT NULL
WITH m.author_uid AS uid, m.root_id AS root_id, max(m.created_at) AS last_wrote_at,
     max(CASE WHEN EXISTS { (m)-[:RECEIVED_BY]->(other:User) WHERE other.uid <> m.author_uid } THEN 1 ELSE 0 END) = 1
       AS addressed
CALL (uid, root_id, last_wrote_at, addressed) {
  MERGE (p:Participation {uid: uid, root_id: root_id})
  SET p.last_wrote_at = last_wrote_at, p.addressed = addressed
} IN TRANSACTIONS OF 10000 ROWS
