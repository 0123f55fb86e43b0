// The channels a user belongs to: the channel streams their open sockets follow.
MATCH (:User {uid: $uid})<-[:HAS_MEMBER]-(c:Channel)
RETURN c.id AS channel_id
