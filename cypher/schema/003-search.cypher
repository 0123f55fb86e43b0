// Search: full-text (Lucene) indexes read by cypher/search/*. Version 011 makes both eventually
// consistent (the consistent form below capped posting; see there why, and how searches still find
// a message as soon as its post answered).
// Message content, analysed by `standard-no-stop-words` (Unicode word boundaries, lower-cased,
// no stemming, no stop words: a search for "the" finds "the").
CREATE FULLTEXT INDEX message_content IF NOT EXISTS FOR (m:Message) ON EACH [m.content]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: false}};
// Message tags (a list of lower-case strings): the `keyword` analyzer keeps each tag whole, so a
// query term matches exactly one tag value. Range indexes cannot index list elements; this can.
CREATE FULLTEXT INDEX message_tags IF NOT EXISTS FOR (m:Message) ON EACH [m.tags]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword', `fulltext.eventually_consistent`: false}};
