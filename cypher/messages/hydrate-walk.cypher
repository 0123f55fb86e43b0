// A walk (cypher/threads/traverse.cypher) with every message it reached hydrated in the same
// statement (fragments/hydrated-rows.cypher), as the walker ($viewer_uid) sees them. Run as
// cypher('messages/hydrate-walk(threads/traverse)'): {{query}} stands for the walk. One record
// (none when the walk has no visible origin): the walk's `nodes`, `edges` and `truncated`;
// `hydrated_ids`, the nodes' ids; `rows`, `visible_lineage` and `visible_tops`. A round trip less
// than the walk and hydrate.cypher one after the other.
CALL () {
  {{query}}
}
WITH nodes, edges, truncated, [node IN nodes | node[0]] AS hydrated_ids
{{hydrated_rows(hydrated_ids)}}
RETURN nodes, edges, truncated, hydrated_ids, rows, visible_lineage, visible_tops
