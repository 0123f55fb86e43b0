// The store's indexes and constraints as the statements that make them again (a restore replays
// them), except the two token lookup indexes every new database has.
SHOW INDEXES YIELD name, type, owningConstraint, createStatement
WHERE type <> 'LOOKUP'
RETURN name, owningConstraint IS NOT NULL AS is_constraint, createStatement AS statement
ORDER BY name
