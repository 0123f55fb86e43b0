// A view's page query (cypher/threads/: `id` rows in the page's order, one more than the page to
// tell has_more) with the page's messages (the first $hydrate_limit) hydrated in the same statement
// (fragments/hydrated-rows.cypher), as the viewer of the page query ($viewer_uid) sees them. Run as
// cypher('messages/hydrate-page(threads/timeline)'): {{query}} stands for the page query. One
// record: `ids`, all the page query answered; `hydrated_ids`, those hydrated; `rows`,
// `visible_lineage` and `visible_tops`. A round trip less than the page query and hydrate.cypher one
// after the other.
CALL () {
  {{query}}
}
WITH collect(id) AS ids
WITH ids, ids[..$hydrate_limit] AS hydrated_ids
{{hydrated_rows(hydrated_ids)}}
RETURN ids, hydrated_ids, rows, visible_lineage, visible_tops
