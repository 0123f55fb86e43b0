// Second statement of a secret rotation, under the contact's lock: the new secret signs from now on,
// and the one it replaces keeps signing beside it until `previous_secret_expires_at` (with no overlap,
// it ends now and is not kept). Only two are ever held: rotating again during an overlap ends the
// oldest at once. Both are stored as they are, like the current one always was: signing needs the key
// itself (HMAC), so a one-way hash cannot stand in for it. The database clock dates the expiry, as
// it dates every lease and due time the dispatcher compares it with.
MATCH (:User {uid: $uid})-[:HAS_CONTACT]->(c:Contact {kind: 'endpoint'})
WHERE {{live_endpoint(c)}}
WITH c, datetime() + duration({seconds: $overlap_seconds}) AS expires_at
SET c.previous_secret = CASE WHEN $overlap_seconds > 0 THEN c.secret ELSE null END,
    c.previous_secret_expires_at = CASE WHEN $overlap_seconds > 0 THEN expires_at ELSE null END,
    c.secret = $secret,
    c.secret_rotated_at = datetime()
RETURN expires_at AS previous_expires_at
