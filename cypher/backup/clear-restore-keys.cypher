// The end of a restore: the restored nodes lose the restore's label and key.
MATCH (n:SkeinRestore)
CALL (n) { REMOVE n:SkeinRestore, n.skein_restore_id } IN TRANSACTIONS OF 10000 ROWS
