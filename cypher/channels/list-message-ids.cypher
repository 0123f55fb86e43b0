// One page of the messages included in a channel, newest first; one extra id tells whether more
// follow. Only the channel's own inclusions are sorted (a top-k over them), never the whole store.
MATCH (:Channel {id: $channel_id})-[:INCLUDES]->(m:Message)
WHERE {{can_see(m)}}
WITH m ORDER BY m.created_at DESC, m.id DESC
SKIP toInteger($skip) LIMIT toInteger($limit) + 1
RETURN m.id AS id
