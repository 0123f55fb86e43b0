// THE rule of a participation record (schema 020), for the (uid, root_id) pair `__m`: recomputed
// from the author's messages in that thread, removed when none is left. Writers that can lower a
// record (deletion, re-rooting, recipient removal) call it for every pair they touched, sorted by
// (uid, root_id) so that two of them lock the records in the same order, and after every other
// write of their transaction (records are the last locks any writer takes).
CALL (__m) {
  OPTIONAL MATCH (written:Message)
  WHERE written.author_uid = __m.uid AND written.root_id = __m.root_id AND written.created_at IS NOT NULL
  WITH __m, max(written.created_at) AS last_wrote_at
  WITH __m, last_wrote_at,
       EXISTS {
         MATCH (addressed:Message)-[:RECEIVED_BY]->(other:User)
         WHERE addressed.author_uid = __m.uid AND addressed.root_id = __m.root_id AND other.uid <> __m.uid
       } AS addressed
  CALL (__m, last_wrote_at) {
    WITH __m, last_wrote_at WHERE last_wrote_at IS NULL
    MATCH (stale:Participation {uid: __m.uid, root_id: __m.root_id})
    DELETE stale
  }
  CALL (__m, last_wrote_at, addressed) {
    WITH __m, last_wrote_at, addressed WHERE last_wrote_at IS NOT NULL
    MERGE (record:Participation {uid: __m.uid, root_id: __m.root_id})
    SET record.last_wrote_at = last_wrote_at, record.addressed = addressed
  }
}
