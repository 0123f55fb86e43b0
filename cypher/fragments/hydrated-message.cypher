// THE row of everything a MessageOutput shows of message __m to the viewer ($viewer_uid), used as
// {{hydrated_message(m)}} by hydrate.cypher and by write-post.cypher (whose answer to the poster is
// built in its own statement): two WITH clauses, after which `row` is the only variable in scope.
// The reactions are counted in the first: an aggregating COLLECT inside the map is refused (Neo4j
// 5.26 takes its count() for the map's own). Needs in scope: `author`, the message's author node; `viewer_channel_ids`,
// the ids of the viewer's channels, read once from the viewer (asked per channel, "is the viewer a
// member?", the planner walked every member of the message's channels: 1,000 rows for a post into
// a 1,000-member channel); and $ids, the messages hydrated together.
// A neighbour (parent, root, reply child, stitch either way) that is itself in $ids is not judged
// here: it is visible exactly when it comes back as a row of its own, which the caller checks
// (message-output.ts). Every other neighbour is judged by the visibility rule. Each recipient is
// listed with the entry the viewer is shown, if any (the BCC rule, receiver-entry.cypher). Times
// are epoch milliseconds: the driver's DateTime decoding cost more than the query. Reactions come
// counted per reaction (one aggregation over the message's REACTED edges, each judged by the
// reaction-shown rule), never one row per reactor.
WITH __m, author, viewer_channel_ids,
     COLLECT { MATCH (__reactor:User)-[__reacted:REACTED]->(__m) WHERE {{reaction_shown(__reacted)}}
          WITH __reacted.reaction AS reaction, count(*) AS reactors, min(__reacted.at) AS first_at,
               sum(CASE WHEN __reactor.uid = $viewer_uid THEN 1 ELSE 0 END) > 0 AS me
          RETURN {reaction: reaction, count: reactors, first_ms: first_at.epochMillis, me: me} } AS __reactions
WITH {
    message: __m {.id, .content, .subject, .public, .tags, .reply_order, .default_outgoing, .import_info_json,
                  created_ms: __m.created_at.epochMillis, edited_ms: __m.edited_at.epochMillis},
    author: author {.uid, .user_tag},
    parent_id: COLLECT { MATCH (__parent:Message {id: __m.parent_id}) WHERE __parent.id IN $ids OR {{can_see(__parent)}} RETURN __parent.id }[0],
    root_id: COLLECT { MATCH (__root:Message {id: __m.root_id}) WHERE __root.id IN $ids OR {{can_see(__root)}} RETURN __root.id }[0],
    recipients: [__listed IN [(__m)-[__r:RECEIVED_BY]->(__u:User)
                              | {uid: __u.uid, user_tag: __u.user_tag, read_ms: __r.read_at.epochMillis,
                                 entry: {{receiver_entry(__r)}}}]
                 WHERE __listed.entry IS NOT NULL
                 | {uid: __listed.uid, user_tag: __listed.user_tag, public: __listed.entry.public,
                    added_by: __listed.entry.added_by, read_ms: __listed.read_ms,
                    added_ms: __listed.entry.added_at.epochMillis}],
    replies: [(__m)-[:REPLY]->(__child:Message) WHERE __child.id IN $ids OR {{can_see(__child)}}
              | [__child.id, __child.created_at.epochMillis]],
    stitch_parents: [(__from:Message)-[:STITCH]->(__m) WHERE __from.id IN $ids OR {{can_see(__from)}}
                     | [__from.id, __from.created_at.epochMillis]],
    stitch_children: [(__m)-[:STITCH]->(__to:Message) WHERE __to.id IN $ids OR {{can_see(__to)}}
                      | [__to.id, __to.created_at.epochMillis]],
    channel_ids: [(__holder:Channel)-[:INCLUDES]->(__m) WHERE __holder.id IN viewer_channel_ids | __holder.id],
    attachments: [(__m)-[__a:ATTACHES]->(__f:File)
                  | __f {.file_id, .filename, .content_type, .size, .sha256, position: __a.position}],
    is_saved: EXISTS { (:User {uid: $viewer_uid})-[:BOOKMARKED]->(__m) },
    reactions: __reactions
  } AS row
