// Writes one post in one statement (each statement is a round trip and a plan execution; a post
// used to run five): its messages, their edges and its events, which a lone post also numbers. The
// CALLs run in order and take locks in the order every writer shares: users (the caller sorts
// $user_edges by uid, so two posts in opposite directions between the same users cannot deadlock),
// then the parent, then channels and files. Answers the REPLY edges created (fewer than $replies means a parent vanished after the
// checks, and the caller rolls back), and the messages as their poster sees them.
CALL () {
  UNWIND $items AS item
  CREATE (:Message {
    id: item.id, content: item.content, subject: item.subject, public: item.public,
    created_at: datetime(item.created_at), author_uid: $actor_uid, parent_id: item.parent_id,
    root_id: item.root_id, tags: item.tags, reply_order: null, default_outgoing: null,
    import_info_json: item.import_info_json, stream_json: item.stream_json
  })
}
CALL () {
  UNWIND $user_edges AS edge
  MATCH (u:User {uid: edge.uid})
  MATCH (m:Message {id: edge.message_id})
  FOREACH (_ IN CASE WHEN edge.kind = 'sent' THEN [1] ELSE [] END | CREATE (u)-[:SENT]->(m))
  FOREACH (_ IN CASE WHEN edge.kind = 'received' THEN [1] ELSE [] END |
    CREATE (m)-[:RECEIVED_BY {public: edge.public, added_by: $actor_uid, added_at: datetime($now), read_at: null,
                           receiver_uid: u.uid, created_at: m.created_at}]->(u)
    CREATE (u)-[:UNREAD]->(m))
}
CALL () {
  UNWIND $replies AS reply
  MATCH (parent:Message {id: reply.parent_id})
  MATCH (child:Message {id: reply.child_id})
  CREATE (parent)-[:REPLY]->(child)
  RETURN count(*) AS replies
}
CALL () {
  UNWIND $inclusions AS inclusion
  MATCH (c:Channel {id: inclusion.channel_id})
  MATCH (m:Message {id: inclusion.message_id})
  MERGE (c)-[i:INCLUDES]->(m)
  ON CREATE SET i.added_by = $actor_uid, i.added_at = datetime($now)
}
CALL () {
  UNWIND $attachments AS attachment
  MATCH (m:Message {id: attachment.message_id})
  MATCH (f:File {file_id: attachment.file_id})
  MERGE (m)-[a:ATTACHES]->(f)
  ON CREATE SET a.position = attachment.position
}
// A reply's thread is its parent's, read after the REPLY edge was created: the edge holds a lock on
// the parent, so a deletion re-rooting the parent's thread either committed before (and this reads
// its new root) or waits for this post (and then re-roots these replies with the rest).
CALL () {
  OPTIONAL MATCH (parent:Message {id: $external_parent_id})
  UNWIND CASE WHEN parent IS NULL THEN [] ELSE $message_ids END AS id
  MATCH (m:Message {id: id})
  SET m.root_id = parent.root_id
}
// The author's participation records (schema 020) are raised last: they are the last locks every
// writer takes (but for the log's, below). A record within $participation_slack_ms of the post, and
// already addressed when the post is, is left alone and so not locked (participation-slack.ts says
// why). Otherwise the SET reads the record it writes, so Cypher locks it before reading, and two
// posts of one author in one thread cannot lose the newer time.
CALL () {
  UNWIND $message_ids AS id
  MATCH (m:Message {id: id})
  WITH m.root_id AS root_id, max(m.created_at) AS last_wrote_at,
       max(CASE WHEN EXISTS { (m)-[:RECEIVED_BY]->(other:User) WHERE other.uid <> $actor_uid } THEN 1 ELSE 0 END) = 1
         AS addressed
  ORDER BY root_id
  MERGE (record:Participation {uid: $actor_uid, root_id: root_id})
  WITH record, last_wrote_at, addressed
  WHERE record.last_wrote_at IS NULL
     OR record.last_wrote_at < last_wrote_at - duration({milliseconds: $participation_slack_ms})
     OR (addressed AND NOT coalesce(record.addressed, false))
  SET record.last_wrote_at = CASE WHEN record.last_wrote_at >= last_wrote_at THEN record.last_wrote_at
                                  ELSE last_wrote_at END,
      record.addressed = coalesce(record.addressed, false) OR addressed
}
CALL () {
  UNWIND $events AS e
  {{create_event(e)}}
}
// The members of the channels the messages went into, at most $channel_members_limit (none when it
// is 0): with the author and recipients, who may see the post, whose kept answers it ends
// (view-cache.ts). Read after the writes, so anyone who joined before this post is counted; a join
// is itself a write that ends every kept answer. Here rather than in a statement of its own: a
// round trip less on the post path.
CALL () {
  UNWIND CASE WHEN $channel_members_limit > 0 THEN $inclusions ELSE [] END AS inclusion
  MATCH (:Channel {id: inclusion.channel_id})-[:HAS_MEMBER]->(member:User)
  WITH DISTINCT member.uid AS uid
  LIMIT toInteger($channel_members_limit)
  RETURN collect(uid) AS channel_member_uids
}
// Every member of the channels in $view_channel_ids (those whose new messages here start threads,
// with listeners on the poster's instance): with the answer below, all that delivery judges for
// such a channel event, read here rather than in a statement after the commit (event-payloads.ts).
CALL () {
  UNWIND $view_channel_ids AS channel_id
  MATCH (c:Channel {id: channel_id})
  RETURN collect({
    channel_id: channel_id, members: COLLECT { MATCH (c)-[:HAS_MEMBER]->(u:User) RETURN u.uid }
  }) AS channel_members
}
// The poster's answer, read from what this statement wrote, as hydrated-rows.cypher reads it
// ($viewer_uid is the poster, $ids the post's messages): the statement a post used to run after its
// commit for it cost a fifth of the post's time in Neo4j. The poster wrote every message, so none
// needs judging; a parent or root outside the post may be one the poster does not see (a reply to
// a reply it was sent), so those are judged.
CALL () {
  OPTIONAL MATCH (:User {uid: $viewer_uid})<-[:HAS_MEMBER]-(channel:Channel)
  WITH $ids AS hydrated_ids, collect(channel.id) AS viewer_channel_ids
  UNWIND hydrated_ids AS id
  MATCH (m:Message {id: id})
  MATCH (author:User {uid: m.author_uid})
  {{hydrated_message(m)}}
  RETURN collect(row) AS written
}
{{visible_lineage(written)}}
// A post alone on this instance numbers its events here, as a round of the sequencer would
// (event-sequencer.ts says when): a round trip and a commit less before its listeners hear it. The
// log's lock is the last lock this statement takes, and a round holding it locks nothing else a
// writer holds, so it cannot deadlock; it is held until the commit, with nobody here waiting.
OPTIONAL CALL () {
  WITH $number_events AS alone
  WHERE alone
  {{number_round(log)}}
  RETURN base, numbered
}
RETURN replies, channel_member_uids, channel_members, written, visible_lineage, visible_tops, base, numbered
