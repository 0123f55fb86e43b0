// Inbox: one entry per thread where the viewer has a receivers edge on some message (unread, with
// $unread_only), or wrote a message with a recipient other than the viewer; the entry is the
// newest message of that thread the viewer may see; entries newest first, one page (+1). One's
// own message is never unread, even when addressed to oneself (as in unread-counts.cypher).
// (inbox-in-channel.cypher is the same rule within one channel.)
//
// The candidate threads come from the viewer's own edges and participation records (schema 020),
// never from a scan of the store or of everything the viewer wrote. Finding each candidate's newest
// visible message would cost a visibility check per message of every candidate thread, so the page
// is bounded first: the message that qualifies a thread is visible, so its time is a floor under the
// thread's entry time, and the thread's newest message (one step down the (root_id, created_at)
// index) is a ceiling over it. A thread whose ceiling is below the $cap-th highest floor cannot
// reach the page; only the others get the exact look-up. A thread of one's own qualifies when its
// record says the viewer addressed someone else there; its floor is the viewer's newest message
// there, which the viewer can always see.
CALL () {
  MATCH (:User {uid: $viewer_uid})<-[r:RECEIVED_BY]-(m:Message)
  WHERE NOT $unread_only OR (r.read_at IS NULL AND m.author_uid <> $viewer_uid)
  RETURN m.root_id AS root_id, m.created_at AS seen_at
  UNION ALL
  MATCH (record:Participation)
  WHERE NOT $unread_only AND record.uid = $viewer_uid AND record.root_id IS NOT NULL AND record.addressed
  RETURN record.root_id AS root_id, record.last_wrote_at AS seen_at
}
WITH root_id, max(seen_at) AS floor
WITH collect({root_id: root_id, floor: floor}) AS threads
CALL (threads) {
  UNWIND threads AS thread
  WITH thread.floor AS floor
  ORDER BY floor DESC
  SKIP $cap_less_one LIMIT 1
  RETURN collect(floor)[0] AS bar
}
UNWIND threads AS thread
CALL (thread) {
  MATCH (newest:Message)
  WHERE newest.root_id = thread.root_id AND newest.created_at IS NOT NULL
  RETURN newest.created_at AS ceiling
  ORDER BY newest.root_id DESC, newest.created_at DESC
  LIMIT 1
}
WITH thread, bar, ceiling
WHERE bar IS NULL OR ceiling >= bar
CALL (thread) {
  MATCH (m:Message)
  WHERE m.root_id = thread.root_id AND m.created_at IS NOT NULL
    AND {{can_see(m)}}
  RETURN m
  ORDER BY m.root_id DESC, m.created_at DESC, m.id DESC
  LIMIT 1
}
RETURN m.id AS id
ORDER BY m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
