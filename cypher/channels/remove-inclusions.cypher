// Removes the channel inclusions listed in $inclusions ({message_id, channel_id}); answers how many went.
UNWIND $inclusions AS gone
MATCH (:Channel {id: gone.channel_id})-[inclusion:INCLUDES]->(:Message {id: gone.message_id})
DELETE inclusion
RETURN count(inclusion) AS removed
