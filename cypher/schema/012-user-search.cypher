// User search (GET /v1/users/search, cypher/users/search-users.cypher). Tags need no new index: the
// user_tag_folded constraint (001) is a range index on the lower-cased tag, which seeks a prefix
// and yields it in tag order. Display names need a full-text index to match a word inside a name.
// `standard-no-stop-words` like message_content: the analyzers that fold accents also drop English
// stop words, and names such as "Will" or "An" are such words. Consistent (unlike 011): a user
// write is rare (registration, profile edits), so refreshing in its commit costs posts nothing, and
// a user is found the moment the registration answered, without waiting for other indexes.
CREATE FULLTEXT INDEX user_display_name IF NOT EXISTS FOR (u:User) ON EACH [u.display_name]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: false}};
