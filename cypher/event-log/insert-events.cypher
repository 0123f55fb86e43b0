// Records the events of one change inside its write transaction, unnumbered (:PendingEvent): the
// sequencer numbers them after commit. No edge to a user or channel is created, so recording takes
// no lock on anything that other writers touch (the post path stays free of hot locks). The events
// of one change share a change_id.
UNWIND $events AS e
CREATE (event:Event:PendingEvent {
  id: e.id, change_id: $change_id, type: e.type, uid: e.uid, channel_id: e.channel_id, message_ids: e.message_ids,
  skip_uids: e.skip_uids, actor_uid: $actor_uid, created_at: datetime($now), changes: e.changes,
  membership_channel: e.membership_channel, membership_joined: e.membership_joined
})
RETURN count(event) AS recorded
