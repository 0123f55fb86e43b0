// The event log (docs/decisions/010-event-log.md): one :Event per change, numbered after commit by
// the sequencer into one global order (:EventLog {id: 'log'}.head is the last number given out).
CREATE CONSTRAINT event_id IF NOT EXISTS FOR (e:Event) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT event_seq IF NOT EXISTS FOR (e:Event) REQUIRE e.seq IS UNIQUE;
CREATE CONSTRAINT event_log_id IF NOT EXISTS FOR (l:EventLog) REQUIRE l.id IS UNIQUE;
// Replay: a user's own events, and each of their channels' events, after a position.
CREATE INDEX event_user_seq IF NOT EXISTS FOR (e:Event) ON (e.uid, e.seq);
CREATE INDEX event_channel_seq IF NOT EXISTS FOR (e:Event) ON (e.channel_id, e.seq);
// Pruning by age.
CREATE INDEX event_created_at IF NOT EXISTS FOR (e:Event) ON (e.created_at);
// A delivery points at its event; the log of a user reads by (uid, seq) as before.
CREATE INDEX delivery_event IF NOT EXISTS FOR (d:Delivery) ON (d.event_id);
CREATE CONSTRAINT webhook_planner_id IF NOT EXISTS FOR (p:WebhookPlanner) REQUIRE p.id IS UNIQUE
