// The target's own indexes and constraints, which a forced restore drops before it replays the archive's.
SHOW INDEXES YIELD name, type, owningConstraint
WHERE type <> 'LOOKUP'
RETURN name, owningConstraint AS constraint_name
