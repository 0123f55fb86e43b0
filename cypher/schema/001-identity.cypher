// Identity: users, their case-folded tags, sessions, API keys and contacts.
CREATE CONSTRAINT user_uid IF NOT EXISTS FOR (u:User) REQUIRE u.uid IS UNIQUE;
CREATE CONSTRAINT user_tag_folded IF NOT EXISTS FOR (u:User) REQUIRE u.tag_folded IS UNIQUE;
CREATE CONSTRAINT session_id IF NOT EXISTS FOR (s:Session) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.key_id IS UNIQUE;
CREATE CONSTRAINT schema_id IF NOT EXISTS FOR (s:SkeinSchema) REQUIRE s.id IS UNIQUE;
CREATE INDEX contact_value IF NOT EXISTS FOR (c:Contact) ON (c.kind, c.value);
