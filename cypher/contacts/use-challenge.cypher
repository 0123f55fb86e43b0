// A right password-reset code: the challenge is used up (the new password and the end of the other
// sessions follow in the same transaction, through the identity queries).
MATCH (c:VerificationChallenge {id: $challenge_id})
WITH c, c.id AS id
DELETE c
RETURN id
