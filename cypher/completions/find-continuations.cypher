// Where a chat completion's re-sent history may continue (decision 033): the bot's newest replies
// to the viewer whose trimmed content starts with the history's last assistant turn, trimmed (a
// reply cut by max_completion_tokens comes back cut; the use case compares trimmed texts too), each
// with its whole reply chain from the thread root down.
// Only chains of the viewer's and the bot's messages, every one visible to the viewer, qualify; the
// use case compares them with the history turn by turn. Starts from the bot's messages: a bot's
// replies to one viewer are few beside everything in the graph.
MATCH (:User {uid: $bot_uid})-[:SENT]->(m:Message)
WHERE m.parent_id IS NOT NULL AND trim(m.content) STARTS WITH $last_assistant
  AND EXISTS { MATCH (m)-[:RECEIVED_BY]->(:User {uid: $viewer_uid}) }
WITH m ORDER BY m.created_at DESC LIMIT $candidates
MATCH chain = (top:Message)-[:REPLY*1..512]->(m)
WHERE top.parent_id IS NULL AND length(chain) < $max_depth
  AND all(n IN nodes(chain) WHERE (n.author_uid = $viewer_uid OR n.author_uid = $bot_uid) AND {{can_see(n)}})
RETURN m.id AS id,
       [n IN nodes(chain) | {id: n.id, author_uid: n.author_uid, content: n.content, tags: coalesce(n.tags, [])}] AS chain
ORDER BY m.created_at DESC
