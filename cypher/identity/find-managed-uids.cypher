// The accounts that the accounts $uids manage, directly or through accounts they manage: their
// grants follow those of the named ones (principal.cypher), so a change of a manager's credentials
// changes theirs too (session-cache.ts). Managed chains are short; the bound only stops a cycle.
UNWIND $uids AS uid
MATCH (:User {uid: uid})-[:MANAGES*1..8]->(managed:User)
RETURN collect(DISTINCT managed.uid) AS uids
