// History: one entry per thread where the viewer wrote a message, ordered by the viewer's latest
// message there, newest first, one page (+1). The entry is the thread's root when the viewer may
// see it, else the viewer's earliest message in the thread. (history-in-channel.cypher is the same
// rule within one channel.)
//
// The threads come from the viewer's participation records (schema 020), never from everything the
// viewer wrote. A record's last_wrote_at may lag the viewer's newest message there by up to
// $slack_ms (participation-slack.ts), so the page is bounded first: the bar is the (skip + take)-th
// highest recorded time, read from the (uid, last_wrote_at) index in its order. At least
// that many threads are at least that new, so a record more than $slack_ms older than the bar
// cannot reach the page; only the others get their exact time, one step down the (root_id,
// created_at) index from the recorded time. Entries are looked up for the page's threads only, the
// earliest own message by an ascending (root_id, created_at) seek that stops at the first match;
// `position` keeps the page's order.
CALL () {
  MATCH (record:Participation)
  USING INDEX record:Participation(uid, last_wrote_at)
  WHERE record.uid = $viewer_uid AND record.last_wrote_at IS NOT NULL
  WITH record.last_wrote_at AS recorded
  ORDER BY record.uid DESC, record.last_wrote_at DESC
  SKIP $cap_less_one LIMIT 1
  RETURN collect(recorded)[0] AS bar
}
WITH coalesce(bar - duration({milliseconds: $slack_ms}), datetime({year: -999999999, month: 1, day: 1})) AS lowest
MATCH (record:Participation)
USING INDEX record:Participation(uid, last_wrote_at)
WHERE record.uid = $viewer_uid AND record.last_wrote_at >= lowest AND record.root_id IS NOT NULL
CALL (record) {
  MATCH (mine:Message)
  WHERE mine.root_id = record.root_id AND mine.created_at >= record.last_wrote_at
    AND mine.author_uid = $viewer_uid
  RETURN mine.created_at AS latest
  ORDER BY mine.root_id DESC, mine.created_at DESC
  LIMIT 1
}
WITH record.root_id AS root_id, latest
ORDER BY latest DESC, root_id DESC
SKIP $skip LIMIT $take
WITH collect(root_id) AS page
UNWIND range(0, size(page) - 1) AS position
WITH position, page[position] AS root_id
CALL (root_id) {
  CALL (root_id) {
    MATCH (root:Message {id: root_id})
    WHERE {{can_see(root)}}
    RETURN root AS entry, 0 AS rank
    UNION
    MATCH (first:Message)
    WHERE first.root_id = root_id AND first.created_at IS NOT NULL AND first.author_uid = $viewer_uid
    RETURN first AS entry, 1 AS rank
    ORDER BY first.root_id, first.created_at, first.id
    LIMIT 1
  }
  RETURN entry
  ORDER BY rank
  LIMIT 1
}
RETURN entry.id AS id
ORDER BY position
