// The full-text indexes of 003, made eventually consistent. A consistent full-text index refreshes
// its Lucene searcher inside every commit that touches a message, one commit at a time: measured
// here, 8 writers creating bare :Message nodes committed 33-55 per second with it and about 500
// without it, so it, not the graph work, capped the post path. Updates are now applied just after
// commit, in the background, and every search first waits for them to be applied
// (`db.index.fulltext.awaitEventuallyConsistentIndexRefresh()` at the top of cypher/search/*), so a
// message is still found by a search made after its post answered. Dropping and creating again is
// harmless when two instances run it at once: the last index standing has these options.
DROP INDEX message_content IF EXISTS;
CREATE FULLTEXT INDEX message_content IF NOT EXISTS FOR (m:Message) ON EACH [m.content]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: true}};
DROP INDEX message_tags IF EXISTS;
CREATE FULLTEXT INDEX message_tags IF NOT EXISTS FOR (m:Message) ON EACH [m.tags]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword', `fulltext.eventually_consistent`: true}};
