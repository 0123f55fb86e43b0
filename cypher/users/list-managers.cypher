// The managers of a managed user that is not deleted, oldest first, and the users invited to manage
// it who have not accepted yet (invite-manager), oldest invitation first (the caller's right to see
// them is that it is one of the managers: manage-managers.ts). No row when it is unknown or deleted.
MATCH (u:User {uid: $uid})
WHERE u.deleted_at IS NULL
RETURN COLLECT {
         MATCH (m:User)-[r:MANAGES]->(u)
         WITH m, coalesce(r.since, u.created_at) AS since
         ORDER BY since, m.uid
         RETURN {uid: m.uid, user_tag: m.user_tag, display_name: m.display_name, since: since}
       } AS managers,
       COLLECT {
         MATCH (invitee:User)-[inv:INVITED_TO_MANAGE]->(u)
         OPTIONAL MATCH (inviter:User {uid: inv.invited_by})
         WITH invitee, inv, inviter
         ORDER BY inv.invited_at, invitee.uid
         RETURN {uid: invitee.uid, user_tag: invitee.user_tag, display_name: invitee.display_name,
                 invited_by: inviter {.uid, .user_tag}, invited_at: inv.invited_at}
       } AS invitations
