// A restore ends once its indexes are online: the service's queries must not run before.
CALL db.awaitIndexes(3600)
