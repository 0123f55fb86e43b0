// THE shape of a recorded event (event-log-repository.ts eventRows builds `__m`), used by
// insert-events and by write-post (which records a post's events in its one write statement):
// created unnumbered (:PendingEvent), with no edge to a user or channel, so recording takes no lock
// that other writers touch. The events of one change share $change_id.
CREATE (:Event:PendingEvent {
  id: __m.id, change_id: $change_id, type: __m.type, uid: __m.uid, channel_id: __m.channel_id,
  message_ids: __m.message_ids, skip_uids: __m.skip_uids, actor_uid: $actor_uid, created_at: datetime($now),
  changes: __m.changes, membership_channel: __m.membership_channel, membership_joined: __m.membership_joined
})
