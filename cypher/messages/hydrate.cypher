// Everything a MessageOutput shows, for the messages in $ids the viewer may see (fragments/
// hydrated-rows.cypher): one record, `rows` and `visible_lineage`.
WITH $ids AS ids
{{hydrated_rows(ids)}}
RETURN rows, visible_lineage
