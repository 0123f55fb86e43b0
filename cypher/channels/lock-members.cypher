// Before a member change: takes the channel's write lock first, so concurrent member changes of one
// channel run one after another and the admin count read here stays true until commit (a channel
// must keep an admin). Answers the viewer's membership, the target's, and the number of admins.
MATCH (c:Channel {id: $channel_id})
SET c.members_changed_at = datetime($now)
WITH c
OPTIONAL MATCH (c)-[mine:HAS_MEMBER]->(:User {uid: $viewer_uid})
OPTIONAL MATCH (c)-[theirs:HAS_MEMBER]->(:User {uid: $uid})
RETURN mine IS NOT NULL AS member,
       coalesce(mine.is_admin, false) AS is_admin,
       theirs IS NOT NULL AS target_member,
       coalesce(theirs.is_admin, false) AS target_is_admin,
       COUNT { (c)-[admin:HAS_MEMBER]->(:User) WHERE admin.is_admin = true } AS admin_count
