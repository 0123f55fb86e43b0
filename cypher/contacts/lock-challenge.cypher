// First statement of checking a code: setting a property takes the challenge's write lock, so two
// checks of one challenge run one after the other and the second sees what the first did (a used
// challenge gone, a wrong try counted). Everything after this runs in the same transaction.
MATCH (c:VerificationChallenge {slot: $slot})
SET c.checked_at = datetime()
RETURN c {.id, .uid, .purpose, .kind, .value, .code_hash, .expires_at, .failed_tries} AS challenge
