// Everything a MessageOutput shows (fragments/hydrated-message.cypher), for the messages in $ids
// the viewer may see: one record, `rows` (one row each) and `visible_lineage` (the parents and roots
// outside $ids the viewer may see; fragments/visible-lineage.cypher). A thread read hydrates parents
// and children together, so most neighbours are not judged twice; judging each list in its own
// subquery cost about three times as much.
CALL () {
  OPTIONAL MATCH (:User {uid: $viewer_uid})<-[:HAS_MEMBER]-(channel:Channel)
  RETURN collect(channel.id) AS viewer_channel_ids
}
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
{{hydrated_message(m)}}
WITH collect(row) AS rows
{{visible_lineage(rows)}}
RETURN rows, visible_lineage
