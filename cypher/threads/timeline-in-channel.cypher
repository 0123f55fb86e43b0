// Timeline restricted to one channel (the caller's membership is checked before): the channel's
// messages, newest first, one page (+1 to tell has_more).
MATCH (:Channel {id: $channel_id})-[:INCLUDES]->(m:Message)
WHERE m.created_at >= datetime($since) AND {{can_see(m)}}
RETURN m.id AS id
ORDER BY m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
