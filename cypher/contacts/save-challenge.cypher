// A new challenge in its slot (purpose, account, contact): MERGE on the unique slot replaces the
// previous challenge there, so a new request makes the old code useless, and concurrent requests
// cannot leave two. An unknown uid matches nothing and writes nothing (the fake reset challenge runs
// this same query, so both cost a write transaction).
MATCH (u:User {uid: $uid})
MERGE (c:VerificationChallenge {slot: $slot})
SET c.id = $id, c.uid = u.uid, c.purpose = $purpose, c.kind = $kind, c.value = $value,
    c.code_hash = $code_hash, c.expires_at = datetime($expires_at), c.failed_tries = 0,
    c.created_at = datetime($now)
RETURN c.id AS id
