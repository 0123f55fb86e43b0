// Content search (with an optional tag filter): one page (+1 to tell has_more) of visible message
// ids matching the Lucene query $lucene on the message_content full-text index, best Lucene score
// first, then newest. $tags (lower-case, may be empty) must all ($match = 'all') or any of them
// occur in m.tags. Visibility is decided here, per hit, by the one rule.
// The indexes are eventually consistent (schema 011): wait until every committed write is in them.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('message_content', $lucene) YIELD node AS m, score
WHERE {{can_see(m)}}
  AND (size($tags) = 0
       OR ($match = 'all' AND all(t IN $tags WHERE t IN m.tags))
       OR ($match = 'any' AND any(t IN $tags WHERE t IN m.tags)))
RETURN m.id AS id
ORDER BY score DESC, m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
