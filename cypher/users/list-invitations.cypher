// The caller's pending invitations to manage someone, oldest first: each managed user (not deleted)
// with who invited the caller and when. An invitation whose inviter no longer manages the user is
// left out (accept-invitation refuses it too).
MATCH (:User {uid: $uid})-[inv:INVITED_TO_MANAGE]->(u:User)
WHERE u.deleted_at IS NULL
MATCH (inviter:User {uid: inv.invited_by})-[:MANAGES]->(u)
RETURN u {.*} AS user, inviter {.uid, .user_tag} AS invited_by, inv.invited_at AS invited_at
ORDER BY inv.invited_at, u.uid
