// Webhooks: one Delivery node per notification sent to an endpoint, with its attempts and lease.
CREATE CONSTRAINT delivery_webhook_id IF NOT EXISTS FOR (d:Delivery) REQUIRE d.webhook_id IS UNIQUE;
// The dispatcher's question: which pending deliveries are due (state equal, next_attempt_at range).
CREATE INDEX delivery_state_due IF NOT EXISTS FOR (d:Delivery) ON (d.state, d.next_attempt_at);
// A user's delivery log, newest first (by the user's notification sequence number).
CREATE INDEX delivery_user_seq IF NOT EXISTS FOR (d:Delivery) ON (d.uid, d.seq);
