// The number of a user's newest notification (0 when none).
MATCH (u:User {uid: $uid})
RETURN coalesce(u.event_seq, 0) AS seq
