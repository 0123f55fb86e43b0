// A restore told to replace what its target holds (--force) empties it first, in batches.
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
