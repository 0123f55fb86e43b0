// Everything a MessageOutput shows, for the messages in $ids the viewer may see, one row each.
// A neighbour (parent, root, reply child, stitch either way) that is itself in $ids is not judged
// here: it is visible exactly when it comes back as a row of its own, which the caller checks
// (message-output.ts). Every other neighbour is judged by the visibility rule. A thread read
// hydrates parents and children together, so most neighbours are not judged twice; judging each
// list in its own subquery cost about three times as much. A BCC recipient is listed only to the
// author, its adder and itself. Times come back as epoch milliseconds: the driver's DateTime
// decoding cost more than the query. The viewer's channels are read once, from the viewer: asked
// per channel ("is the viewer a member?"), the planner walked every member of the message's
// channels (1,000 rows for a post into a 1,000-member channel). Reactions come counted per reaction
// (one aggregation over the message's REACTED edges, each judged by the reaction-shown rule), never
// as one row per reactor.
CALL () {
  OPTIONAL MATCH (:User {uid: $viewer_uid})<-[:HAS_MEMBER]-(channel:Channel)
  RETURN collect(channel.id) AS viewer_channel_ids
}
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
RETURN m {.id, .content, .subject, .public, .tags, .reply_order, .default_outgoing, .import_info_json,
          created_ms: m.created_at.epochMillis, edited_ms: m.edited_at.epochMillis} AS message,
       author {.uid, .user_tag} AS author,
       COLLECT { MATCH (parent:Message {id: m.parent_id}) WHERE parent.id IN $ids OR {{can_see(parent)}} RETURN parent.id }[0]
         AS parent_id,
       COLLECT { MATCH (root:Message {id: m.root_id}) WHERE root.id IN $ids OR {{can_see(root)}} RETURN root.id }[0]
         AS root_id,
       [(m)-[r:RECEIVED_BY]->(u:User)
        WHERE r.public OR m.author_uid = $viewer_uid OR r.added_by = $viewer_uid OR u.uid = $viewer_uid
        | {uid: u.uid, user_tag: u.user_tag, public: r.public, added_by: r.added_by,
           read_ms: r.read_at.epochMillis, added_ms: r.added_at.epochMillis}] AS recipients,
       [(m)-[:REPLY]->(child:Message) WHERE child.id IN $ids OR {{can_see(child)}}
        | [child.id, child.created_at.epochMillis]] AS replies,
       [(from:Message)-[:STITCH]->(m) WHERE from.id IN $ids OR {{can_see(from)}}
        | [from.id, from.created_at.epochMillis]] AS stitch_parents,
       [(m)-[:STITCH]->(to:Message) WHERE to.id IN $ids OR {{can_see(to)}}
        | [to.id, to.created_at.epochMillis]] AS stitch_children,
       [(channel:Channel)-[:INCLUDES]->(m) WHERE channel.id IN viewer_channel_ids | channel.id] AS channel_ids,
       [(m)-[a:ATTACHES]->(f:File) | f {.file_id, .filename, .content_type, .size, .sha256, position: a.position}]
         AS attachments,
       EXISTS { (:User {uid: $viewer_uid})-[:BOOKMARKED]->(m) } AS is_saved,
       COLLECT { MATCH (reactor:User)-[r:REACTED]->(m) WHERE {{reaction_shown(r)}}
                 WITH r.reaction AS reaction, count(*) AS reactors, min(r.at) AS first_at,
                      sum(CASE WHEN reactor.uid = $viewer_uid THEN 1 ELSE 0 END) > 0 AS me
                 RETURN {reaction: reaction, count: reactors, first_ms: first_at.epochMillis, me: me} }
         AS reactions
