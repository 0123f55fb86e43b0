// Writes the given fields of a user (profile edits, admin changes); absent keys stay as they are.
MATCH (u:User {uid: $uid})
SET u += $changes
RETURN u {.*} AS user
