// Drops one challenge by id (used, dead, or its code could not be sent).
MATCH (c:VerificationChallenge {id: $id})
DELETE c
