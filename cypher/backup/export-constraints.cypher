// Constraints the index list does not name: those backed by no index (property existence and type,
// which Community refuses anyway, kept here so that a store that has them fails loudly on restore).
SHOW CONSTRAINTS YIELD name, type, createStatement
WHERE NOT type IN ['UNIQUENESS', 'NODE_KEY', 'RELATIONSHIP_UNIQUENESS', 'RELATIONSHIP_KEY']
RETURN name, createStatement AS statement
ORDER BY name
