// Tag search: one page (+1) of visible message ids carrying any ($match = 'any') or all
// ($match = 'all') of $tags. The message_tags full-text index (keyword analyzer, one term per tag)
// finds the candidates from $lucene; the WHERE restates the rule on the list itself so that the
// answer never depends on the analyzer. Relevance is the number of the asked tags a message
// carries (all equal under 'all'), then newest first.
// The indexes are eventually consistent (schema 011): wait until every committed write is in them.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('message_tags', $lucene) YIELD node AS m
WITH m, size([t IN $tags WHERE t IN m.tags]) AS matched
WHERE matched > 0
  AND ($match = 'any' OR matched = size($tags))
  AND {{can_see(m)}}
RETURN m.id AS id
ORDER BY matched DESC, m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
