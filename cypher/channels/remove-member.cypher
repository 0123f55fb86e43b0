// Ends a membership; the channel and its messages stay.
MATCH (:Channel {id: $channel_id})-[membership:HAS_MEMBER]->(:User {uid: $uid})
DELETE membership
RETURN count(*) AS removed
