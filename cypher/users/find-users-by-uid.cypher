// Users by uid (a GraphQL request's batch), each with whether $viewer_uid (null for none) manages
// it: what its UserOutput may show that viewer (managed-user-policy.ts), judged in the same read.
UNWIND $uids AS wanted
MATCH (u:User {uid: wanted})
RETURN u {.*} AS user, EXISTS { MATCH (:User {uid: $viewer_uid})-[:MANAGES]->(u) } AS viewer_manages
