// A user by folded tag, and whether $viewer_uid (null for none) manages it: what its UserOutput may
// show that viewer (managed-user-policy.ts), judged in the same read.
MATCH (u:User {tag_folded: $tag_folded})
RETURN u {.*} AS user, EXISTS { MATCH (:User {uid: $viewer_uid})-[:MANAGES]->(u) } AS viewer_manages
