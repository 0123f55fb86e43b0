// The challenge in a slot, whatever its state (the use case decides whether it is still live).
MATCH (c:VerificationChallenge {slot: $slot})
RETURN c {.id, .uid, .purpose, .kind, .value, .code_hash, .expires_at, .failed_tries} AS challenge
