// One batch of a restore's nodes, each with its labels and properties and, for the relationships
// that follow, the id it had in the archive under a label and property of the restore's own (removed
// at its end, with their index).
UNWIND $rows AS row
CREATE (n:$(row.labels))
SET n = row.props, n:SkeinRestore, n.skein_restore_id = row.id
RETURN count(n) AS created
