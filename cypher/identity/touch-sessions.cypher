// Records use of sessions. Callers send a session only when its stored time is over a minute old,
// and gather what a second brings into one write (credential-reads.ts).
UNWIND $session_ids AS session_id
MATCH (s:Session {id: session_id})
SET s.last_used_at = datetime($now)
