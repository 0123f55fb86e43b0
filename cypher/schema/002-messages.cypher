// The message graph: messages, channels, idempotency records, and the indexes the views use.
CREATE CONSTRAINT message_id IF NOT EXISTS FOR (m:Message) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT channel_id IF NOT EXISTS FOR (c:Channel) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT idempotency_key IF NOT EXISTS FOR (i:IdempotencyRecord) REQUIRE i.key IS UNIQUE;
CREATE INDEX message_created IF NOT EXISTS FOR (m:Message) ON (m.created_at);
CREATE INDEX message_root_created IF NOT EXISTS FOR (m:Message) ON (m.root_id, m.created_at);
CREATE INDEX message_author_created IF NOT EXISTS FOR (m:Message) ON (m.author_uid, m.created_at);
CREATE INDEX message_public_created IF NOT EXISTS FOR (m:Message) ON (m.public, m.created_at);
CREATE INDEX idempotency_created IF NOT EXISTS FOR (i:IdempotencyRecord) ON (i.created_at);
