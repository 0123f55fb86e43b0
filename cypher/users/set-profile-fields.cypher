// Writes the given profile fields of a user (its own edit, POST /v1/users/profile); absent keys stay
// as they are. Only fields no credential is judged by and no message view shows
// (users/profile-fields.ts): neither the session cache nor the view cache forgets anything for it.
MATCH (u:User {uid: $uid})
SET u += $changes
RETURN u {.*} AS user
