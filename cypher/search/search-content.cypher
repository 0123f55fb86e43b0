// The indexes are eventually consistent (schema 011): wait until every committed write is in them.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
// Content search (with an optional tag filter): one page (+1 to tell has_more) of visible message
// ids matching the Lucene query $lucene on the message_content full-text index. $tags (lower-case,
// may be empty) must all ($match = 'all') or any of them occur in m.tags. Visibility is decided
// here, per hit, by the one rule.
// Ranking never uses Lucene's score: BM25 weighs terms by statistics of the whole index, hidden
// messages included, so the order of visible hits would reveal words of messages the caller cannot
// see. The order is computed on each visible hit alone: how many times the query's words
// ($words, lower-case) occur in its lower-cased content, then newest, then id.
CALL db.index.fulltext.queryNodes('message_content', $lucene) YIELD node AS m
WHERE {{can_see(m)}}
  AND (size($tags) = 0
       OR ($match = 'all' AND all(t IN $tags WHERE t IN m.tags))
       OR ($match = 'any' AND any(t IN $tags WHERE t IN m.tags)))
WITH m, toLower(coalesce(m.content, '')) AS text
WITH m, reduce(hits = 0, w IN $words | hits + size(split(text, w)) - 1) AS frequency
RETURN m.id AS id
ORDER BY frequency DESC, m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
