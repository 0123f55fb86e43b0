// One batch of a restore's relationships between nodes restored before them. A relationship whose
// end the archive lacks (made while the backup read) is left out and counted by the caller.
UNWIND $rows AS row
MATCH (a:SkeinRestore {skein_restore_id: row.from})
MATCH (b:SkeinRestore {skein_restore_id: row.to})
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props
RETURN count(r) AS created
