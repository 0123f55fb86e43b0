// What one user may be handed between two positions, in order: their own events, and the events of
// the channels they belong to now, from when they joined (never the internal membership events,
// never a channel event that skips them). What each event shows is decided when it is handed out.
CALL () {
  MATCH (e:Event {uid: $uid})
  WHERE e.seq > $after AND e.seq <= $upto AND e.type <> 'membership'
  RETURN e
  ORDER BY e.seq
  LIMIT $limit
  UNION
  MATCH (:User {uid: $uid})<-[membership:HAS_MEMBER]-(c:Channel)
  MATCH (e:Event {channel_id: c.id})
  WHERE e.seq > $after AND e.seq <= $upto AND e.created_at >= coalesce(membership.joined_at, datetime({epochMillis: 0}))
    AND NOT $uid IN e.skip_uids
  RETURN e
  ORDER BY e.seq
  LIMIT $limit
}
WITH e ORDER BY e.seq LIMIT $limit
RETURN e {.*, created_at: e.created_at} AS event
