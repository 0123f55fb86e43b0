// A wrong code: one more failed try; the try that reaches the limit removes the challenge, so every
// later try answers as if there were none. Every refused emailed code runs it, an unknown account's
// or a missing challenge's with an id that matches nothing, so a refusal costs the same whatever
// the account (emailed-codes.ts).
MATCH (c:VerificationChallenge {id: $id})
SET c.failed_tries = c.failed_tries + 1
WITH c, c.failed_tries >= $max_tries AS dead
FOREACH (_ IN CASE WHEN dead THEN [1] ELSE [] END | DELETE c)
RETURN dead
