// Bots are few among users: GET /v1/models seeks them by
// this index instead of scanning every account. (The metrics and the export read the message
// indexes of 002-messages.cypher.)
CREATE INDEX user_is_bot IF NOT EXISTS FOR (u:User) ON (u.is_bot);
