MATCH (:User {uid: $manager_uid})-[:MANAGES]->(u:User)
RETURN u {.*} AS user
ORDER BY u.created_at, u.uid
