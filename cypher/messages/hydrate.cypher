// Everything a MessageOutput shows, for the messages in $ids the viewer may see (fragments/
// hydrated-rows.cypher): one record, `rows`, `visible_lineage` and `visible_tops`.
WITH $ids AS ids
{{hydrated_rows(ids)}}
RETURN rows, visible_lineage, visible_tops
