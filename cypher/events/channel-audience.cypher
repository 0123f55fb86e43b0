// Who belongs to the channels a message was just included in: the audience of a `channels` event.
UNWIND $inclusions AS inclusion
MATCH (:Channel {id: inclusion.channel_id})-[:HAS_MEMBER]->(member:User)
RETURN DISTINCT inclusion.message_id AS message_id, member.uid AS uid
