// Events: the notification outbox, one node per notification, numbered per user.
CREATE CONSTRAINT notification_id IF NOT EXISTS FOR (n:Notification) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT notification_user_seq IF NOT EXISTS FOR (n:Notification) REQUIRE (n.uid, n.seq) IS UNIQUE;
