// The caller declines its pending invitation to manage $uid; it goes. No row when there is none.
MATCH (:User {uid: $caller_uid})-[inv:INVITED_TO_MANAGE]->(u:User {uid: $uid})
DELETE inv
RETURN u.uid AS uid
