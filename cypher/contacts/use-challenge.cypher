// A right emailed code: the challenge is used up. For a password reset, the new password and the end
// of the other sessions follow in the same transaction, through the identity queries; a sign-in code
// is only used up, and the session is minted after.
MATCH (c:VerificationChallenge {id: $challenge_id})
WITH c, c.id AS id
DELETE c
RETURN id
