// The conversation context of message $message_id as $viewer_uid may see it, in one statement
// (docs/decisions/026-conversation-context.md). No row when the message is missing or invisible;
// else one row: `entries` in answer order (the starting context, the thread's ancestors from the
// top down, then the message itself), `authors` of them, and `truncated`.
//
// Starting context: only when the viewer is a bot with a context_origin_id. The origin (a root the
// viewer may see, as it sees roots: fragments/seen-as-root.cypher, the rule its setting was judged
// by), then its default_outgoing child (a reply or stitch child, as MessageOutput shows
// it), and so on. The chain stops at the first message the viewer may not see (its default child
// is reached only through it), at one it already holds (stitches can make cycles), at the message
// itself, and after $limit messages (at most $limit - 1 can be kept beside the message; the one
// more tells that something was cut).
// Ancestors: up along the reply parent, nearest first, stopping at the first one the viewer may
// not see, so that an invisible ancestor and everything above it answer as if they were missing
// (as traversal and the public page do), and after $limit of them. Those at the top of the thread
// that the starting context already holds are not repeated.
// Bounds: the message always comes. Then as much of the starting context as fits, from the origin
// on; then as many ancestors as fit in what is left, nearest first. Each part stops at its first
// entry that does not fit ($limit entries, $max_chars content characters in all), so nothing is
// ever skipped over. Every walk is lazy: each step judges one message, and only while it is open.
MATCH (m:Message {id: $message_id})
WHERE {{can_see(m)}}
OPTIONAL MATCH (viewer:User {uid: $viewer_uid})
WITH m, CASE WHEN viewer.is_bot = true THEN viewer.context_origin_id END AS origin_id
CALL (m, origin_id) {
  OPTIONAL MATCH (origin:Message {id: origin_id})
  WHERE origin <> m AND {{can_see(origin)}} AND {{seen_as_root(origin)}}
  RETURN CASE WHEN origin IS NULL THEN [] ELSE
    reduce(walk = {last: origin, chain: [origin]}, step IN range(2, $limit) |
      CASE WHEN walk.last IS NULL THEN walk
      ELSE head([next IN [cur IN [walk.last] |
              head([(cur)-[:REPLY|STITCH]->(c:Message)
                    WHERE c.id = cur.default_outgoing AND c <> m AND NOT c IN walk.chain AND {{can_see(c)}}
                    | c])]
            | {last: next, chain: CASE WHEN next IS NULL THEN walk.chain ELSE walk.chain + next END}])
      END).chain
  END AS chain
}
WITH m, chain,
  reduce(walk = {last: m, above: []}, step IN range(1, $limit) |
    CASE WHEN walk.last IS NULL THEN walk
    ELSE head([next IN [cur IN [walk.last] | head([(p:Message)-[:REPLY]->(cur) WHERE {{can_see(p)}} | p])]
          | {last: next, above: CASE WHEN next IS NULL THEN walk.above ELSE walk.above + next END}])
    END).above AS above
// The ancestors oldest first, less the run at the top that the starting context holds; then
// nearest first again for the cut.
WITH m, chain, reverse(reduce(acc = {shared: true, kept: []}, a IN reverse(above) |
    CASE WHEN acc.shared AND a IN chain THEN acc
    ELSE {shared: false, kept: acc.kept + a} END).kept) AS above
WITH m, chain, above,
  reduce(acc = {kept: [], count: 1, chars: size(m.content), open: true}, n IN chain |
    CASE WHEN acc.open AND acc.count < $limit AND acc.chars + size(n.content) <= $max_chars
      THEN {kept: acc.kept + n, count: acc.count + 1, chars: acc.chars + size(n.content), open: true}
      ELSE {kept: acc.kept, count: acc.count, chars: acc.chars, open: false} END) AS starting
WITH m, chain, above, starting,
  reduce(acc = {kept: [], count: starting.count, chars: starting.chars, open: true}, n IN above |
    CASE WHEN acc.open AND acc.count < $limit AND acc.chars + size(n.content) <= $max_chars
      THEN {kept: acc.kept + n, count: acc.count + 1, chars: acc.chars + size(n.content), open: true}
      ELSE {kept: acc.kept, count: acc.count, chars: acc.chars, open: false} END) AS thread
WITH size(starting.kept) < size(chain) OR size(thread.kept) < size(above) AS truncated,
  [n IN starting.kept | {n: n, part: 'starting_context'}]
    + [n IN reverse(thread.kept) | {n: n, part: 'thread'}]
    + [{n: m, part: 'thread'}] AS entries
// One row: the entries in answer order, and their authors once each (two authors take turns down a
// long thread; a row per entry, each reading its author again, was slower: decision 026).
CALL (entries) {
  UNWIND entries AS entry
  WITH DISTINCT entry.n.author_uid AS uid
  MATCH (author:User {uid: uid})
  RETURN collect(author {.uid, .user_tag, is_bot: coalesce(author.is_bot, false)}) AS authors
}
RETURN truncated, authors, [entry IN entries | head([n IN [entry.n] | {
  part: entry.part, id: n.id, content: n.content, created_ms: n.created_at.epochMillis,
  author_uid: n.author_uid,
  attachments: [(n)-[a:ATTACHES]->(f:File)
                | f {.file_id, .filename, .content_type, .size, .sha256, position: a.position}]
}])] AS entries
