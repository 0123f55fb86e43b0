// The viewer's own messages by thread: inbox and history group everything a user wrote by root_id.
// With root_id in the index they read it from the index entries instead of from each message node
// (halves their database work for a user with 10 000 messages; docs/views-query-plans.md).
CREATE INDEX message_author_created_root IF NOT EXISTS FOR (m:Message) ON (m.author_uid, m.created_at, m.root_id);
