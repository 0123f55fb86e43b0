// Everything a MessageOutput shows (hydrated-message.cypher) of the messages whose ids the list
// __m holds, as the viewer ($viewer_uid) may see them, used as {{hydrated_rows(ids)}}: a CALL whose
// outputs are `rows`, one per message the viewer may see (the others are left out),
// `visible_lineage` and `visible_tops` (visible-lineage.cypher). Used by hydrate.cypher on $ids, and by the views
// that hydrate the page they found in the same statement (hydrate-page.cypher, hydrate-walk.cypher):
// a round trip less per page. A thread read hydrates parents and children together, so most
// neighbours are not judged twice; judging each list in its own subquery cost about three times as
// much.
CALL (__m) {
  OPTIONAL MATCH (:User {uid: $viewer_uid})<-[:HAS_MEMBER]-(__channel:Channel)
  WITH __m AS hydrated_ids, collect(__channel.id) AS viewer_channel_ids
  UNWIND hydrated_ids AS __wanted
  MATCH (__hydrated:Message {id: __wanted})
  WHERE {{can_see(__hydrated)}}
  MATCH (author:User {uid: __hydrated.author_uid})
  {{hydrated_message(__hydrated)}}
  WITH collect(row) AS rows
  {{visible_lineage(rows)}}
  RETURN rows, visible_lineage, visible_tops
}
