// The parents and roots that hydrated rows name and that the viewer ($viewer_uid) may see, used as
// {{visible_lineage(rows)}} on a list of rows built by hydrated-message.cypher (positions 2 and 3
// hold the parent's and the root's ids unjudged): two CALLs whose only outputs are
// `visible_lineage`, the ids of those that are not rows themselves and pass the visibility rule,
// and `visible_tops`, [row id, top id] for each row whose parent the viewer sees and whose stored
// root it does not, the top being the root that row shows (visible-top.cypher). One that is a row
// is visible as that row is (message-output.ts, which applies shown-root.cypher's rule from these).
// Judged here once per distinct id, after the rows: as a subquery in each row's expression the two
// lookups were a third of a page's hydration in Neo4j (1.9–2.4 against 1.2–1.4 ms for 50,
// 2026-11-29), mostly for rows without a parent, or whose parent and root are hydrated with them.
// The walk up is only for the rows that need it (rare: a reply whose thread root is hidden from the
// viewer while its parent is not); the others cost list lookups, no database access.
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
// The rows to walk from are picked in a list before anything is looked up: filtered after an
// UNWIND, the planner sought every row's message first (two db hits a row on every page).
CALL (__m, visible_lineage) {
  WITH __m AS __rows, [__row IN __m | __row[0][0]] + visible_lineage AS __seen
  UNWIND [__row IN __rows
          WHERE __row[2] IS NOT NULL AND __row[3] IS NOT NULL AND NOT __row[3] IN __seen AND __row[2] IN __seen
          | __row[0][0]] AS __walker_id
  MATCH (__walker:Message {id: __walker_id})
  WITH __walker, {{visible_top(__walker)}} AS __top_id
  RETURN collect([__walker.id, __top_id]) AS visible_tops
}
