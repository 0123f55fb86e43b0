// Search: full-text (Lucene) indexes read by cypher/search/*. Neither is eventually consistent
// (`fulltext.eventually_consistent` false, Neo4j's default, stated here so that it stays so): an
// index update is part of the writing transaction's commit, so a message is searchable as soon as
// its post answers.
// Message content, analysed by `standard-no-stop-words` (Unicode word boundaries, lower-cased,
// no stemming, no stop words: a search for "the" finds "the").
CREATE FULLTEXT INDEX message_content IF NOT EXISTS FOR (m:Message) ON EACH [m.content]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: false}};
// Message tags (a list of lower-case strings): the `keyword` analyzer keeps each tag whole, so a
// query term matches exactly one tag value. Range indexes cannot index list elements; this can.
CREATE FULLTEXT INDEX message_tags IF NOT EXISTS FOR (m:Message) ON EACH [m.tags]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword', `fulltext.eventually_consistent`: false}};
