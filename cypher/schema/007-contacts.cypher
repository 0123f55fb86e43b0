// Contacts: verification and password-reset challenges. One challenge per slot (purpose, account,
// contact); MERGE on the unique slot is what makes "a new request replaces the old one" safe under
// concurrency. Ids are looked up when a challenge is used or dropped.
CREATE CONSTRAINT challenge_slot IF NOT EXISTS FOR (c:VerificationChallenge) REQUIRE c.slot IS UNIQUE;
CREATE INDEX challenge_id IF NOT EXISTS FOR (c:VerificationChallenge) ON (c.id);
