// Adds receiver edges in one statement, under the messages' locks (lock-messages.cypher); `added`
// tells which pairs this statement added, `created` which of them are new edges. An edge whose
// entry the adder is shown is left as it is (its first added_by and its CC/BCC flag win). An edge
// the adder is shown no entry of (someone else's BCC entry, receiver-entry.cypher) gets the adder's
// entry laid over it, as if it had not existed (decision 022): the entry on top moves under, with
// its adder and time, into covered_by and covered_at; held_since keeps when the recipient first got
// the edge; the read state starts again, as a new edge's does (read_at null, an UNREAD twin).
UNWIND $pairs AS pair
MATCH (m:Message {id: pair.message_id})
MATCH (u:User {uid: pair.uid})
OPTIONAL MATCH (m)-[existing:RECEIVED_BY]->(u)
WITH m, u, pair, existing,
     CASE WHEN existing IS NOT NULL THEN {{receiver_entry(existing)}} END AS seen
CALL (m, u, pair, existing, seen) {
  WITH m, u, pair, existing WHERE existing IS NULL
  CREATE (m)-[:RECEIVED_BY {public: pair.public, added_by: $viewer_uid, added_at: datetime($now), read_at: null,
                       receiver_uid: u.uid, created_at: m.created_at}]->(u)
  CREATE (u)-[:UNREAD]->(m)
  RETURN true AS created, true AS added
  UNION ALL
  WITH m, u, pair, existing, seen WHERE existing IS NOT NULL AND seen IS NULL
  WITH m, u, pair, existing,
       coalesce(existing.covered_by, []) + coalesce(existing.added_by, '') AS covered_by,
       coalesce(existing.covered_at, []) + coalesce(existing.added_at, m.created_at) AS covered_at,
       coalesce(existing.held_since, existing.added_at, m.created_at) AS held_since
  SET existing.covered_by = covered_by, existing.covered_at = covered_at, existing.held_since = held_since,
      existing.public = pair.public, existing.added_by = $viewer_uid, existing.added_at = datetime($now),
      existing.read_at = null
  MERGE (u)-[:UNREAD]->(m)
  RETURN false AS created, true AS added
  UNION ALL
  WITH existing, seen WHERE existing IS NOT NULL AND seen IS NOT NULL
  RETURN false AS created, false AS added
}
WITH collect({message_id: pair.message_id, uid: pair.uid, added: added, public: pair.public}) AS results,
     collect(CASE WHEN created AND u.uid <> m.author_uid THEN {uid: m.author_uid, root_id: m.root_id} END)
       AS addressed_threads
// An author whose message now has another recipient addressed someone in its thread
// (participation records, schema 020): raised last, in (uid, root_id) order. A laid-over edge
// existed already, so its author's record says so.
CALL (addressed_threads) {
  UNWIND addressed_threads AS thread
  WITH DISTINCT thread
  WITH thread
  ORDER BY thread.uid, thread.root_id
  MATCH (record:Participation {uid: thread.uid, root_id: thread.root_id})
  SET record.addressed = true
}
UNWIND results AS result
RETURN result.message_id AS message_id, result.uid AS uid, result.added AS added, result.public AS public
