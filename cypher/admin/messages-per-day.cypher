// Messages per UTC calendar day and author, for days in [$from_date, $to_date] (inclusive), most
// days first by date, then the busiest authors. The bounds are computed from parameters only, so
// the planner seeks the message_created index over the range instead of scanning every message.
// created_at is stored in UTC, so date() of it is the UTC calendar day.
MATCH (m:Message)
WHERE m.created_at >= datetime({date: date($from_date), timezone: 'Z'})
  AND m.created_at < datetime({date: date($to_date) + duration({days: 1}), timezone: 'Z'})
WITH date(m.created_at) AS day, m.author_uid AS uid, count(*) AS count
ORDER BY day, count DESC, uid
LIMIT $limit
OPTIONAL MATCH (u:User {uid: uid})
RETURN toString(day) AS date, uid, coalesce(u.user_tag, uid) AS user_tag, count
ORDER BY day, count DESC, uid
