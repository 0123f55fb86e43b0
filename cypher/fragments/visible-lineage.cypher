// The parents and roots that hydrated rows name and that the viewer ($viewer_uid) may see, used as
// {{visible_lineage(rows)}} on a list of rows built by hydrated-message.cypher (positions 2 and 3
// hold the parent's and the root's ids unjudged): a CALL whose only output is `visible_lineage`, the
// ids of those that are not rows themselves and pass the visibility rule. One that is a row is
// visible as that row is (message-output.ts). Judged here once per distinct id, after the rows: as
// a subquery in each row's expression the two lookups were a third of a page's hydration in Neo4j
// (1.9–2.4 against 1.2–1.4 ms for 50, 2026-11-29), mostly for rows without a parent, or whose
// parent and root are hydrated with them.
CALL (__m) {
  WITH __m AS __rows, [__row IN __m | __row[0][0]] AS __row_ids
  UNWIND __rows AS __row
  UNWIND [__row[2], __row[3]] AS __lineage_id
  WITH DISTINCT __row_ids, __lineage_id
  WHERE __lineage_id IS NOT NULL AND NOT __lineage_id IN __row_ids
  MATCH (__lineage:Message {id: __lineage_id})
  WHERE {{can_see(__lineage)}}
  RETURN collect(__lineage.id) AS visible_lineage
}
