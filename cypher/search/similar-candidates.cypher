// Candidates for similar messages: the message_content full-text index answers the messages that
// share at least one token with the source ($lucene: its distinct tokens, OR-ed). Work is bounded
// twice: Lucene hands over at most $hits best hits, and of those the $cap best-scoring ones the
// viewer may see (the source itself excluded) come back, with the first $content_chars characters
// of the content (all the exact score in TypeScript reads), so no candidate's full content is loaded.
// The indexes are eventually consistent (schema 011): wait until every committed write is in them.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('message_content', $lucene, {limit: $hits}) YIELD node AS m, score
WHERE m.id <> $source_id AND {{can_see(m)}}
RETURN m.id AS id, left(m.content, $content_chars) AS content, m.created_at AS created_at
ORDER BY score DESC, m.created_at DESC, m.id DESC
LIMIT $cap
