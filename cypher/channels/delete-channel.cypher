// Deletes a channel with its memberships and inclusions; the messages themselves stay.
MATCH (c:Channel {id: $channel_id})
DETACH DELETE c
RETURN count(*) AS deleted
