// THE row of everything a MessageOutput shows of message __m to the viewer ($viewer_uid), used as
// {{hydrated_message(m)}} by hydrate.cypher and by write-post.cypher (whose answer to the poster is
// built in its own statement): WITH clauses, after the last of which `row` is the only variable in
// scope. Needs in scope: `author`, the message's author node; `viewer_channel_ids`, the ids of the
// viewer's channels, read once from the viewer (asked per channel, "is the viewer a member?", the
// planner walked every member of the message's channels: 1,000 rows for a post into a 1,000-member
// channel); and $ids, the messages hydrated together.
// The message's edges of the listed types are read in one expand, and every list is cut from that
// one list with expressions: each list as a pattern of its own was one more Apply per message,
// and in Community's slotted runtime a plan's cost per row is mostly its number of operators (eight
// subqueries per message cost a fifth more database time than one expand, most lists being empty).
// A neighbour (parent, root, reply child, stitch either way) that is itself in $ids is not judged
// here: it is visible exactly when it comes back as a row of its own, which the caller checks
// (message-output.ts). Every other neighbour is judged by the visibility rule. Each recipient is
// listed with the entry the viewer is shown, if any (the BCC rule, receiver-entry.cypher). Times
// are epoch milliseconds: the driver's DateTime decoding cost more than the query. Reactions come
// counted per reaction from the edges the reaction-shown rule keeps (grouped here by expressions:
// an aggregating COLLECT inside the map is refused, as Neo4j 5.26 takes its count() for the map's
// own), never one row per reactor.
WITH __m, author, viewer_channel_ids,
     [(__m)-[__link:RECEIVED_BY|REPLY|STITCH|INCLUDES|ATTACHES|BOOKMARKED|REACTED]-(__other) | __link] AS __links
WITH __m, author, viewer_channel_ids, __links,
     [__reacted IN __links WHERE type(__reacted) = 'REACTED' AND {{reaction_shown(__reacted)}}] AS __shown_reactions
WITH __m, author, viewer_channel_ids, __links, __shown_reactions,
     reduce(__names = [], __reacted IN __shown_reactions |
            CASE WHEN __reacted.reaction IN __names THEN __names ELSE __names + __reacted.reaction END) AS __reaction_names
WITH {
    message: __m {.id, .content, .subject, .public, .tags, .reply_order, .default_outgoing, .import_info_json,
                  created_ms: __m.created_at.epochMillis, edited_ms: __m.edited_at.epochMillis},
    author: author {.uid, .user_tag},
    parent_id: COLLECT { MATCH (__parent:Message {id: __m.parent_id}) WHERE __parent.id IN $ids OR {{can_see(__parent)}} RETURN __parent.id }[0],
    root_id: COLLECT { MATCH (__root:Message {id: __m.root_id}) WHERE __root.id IN $ids OR {{can_see(__root)}} RETURN __root.id }[0],
    recipients: [__listed IN [__r IN __links WHERE type(__r) = 'RECEIVED_BY'
                              | {uid: endNode(__r).uid, user_tag: endNode(__r).user_tag, read_ms: __r.read_at.epochMillis,
                                 entry: {{receiver_entry(__r)}}}]
                 WHERE __listed.entry IS NOT NULL
                 | {uid: __listed.uid, user_tag: __listed.user_tag, public: __listed.entry.public,
                    added_by: __listed.entry.added_by, read_ms: __listed.read_ms,
                    added_ms: __listed.entry.added_at.epochMillis}],
    replies: [__child IN [__l IN __links WHERE type(__l) = 'REPLY' AND startNode(__l) = __m | endNode(__l)]
              WHERE __child.id IN $ids OR {{can_see(__child)}} | [__child.id, __child.created_at.epochMillis]],
    stitch_parents: [__from IN [__l IN __links WHERE type(__l) = 'STITCH' AND endNode(__l) = __m | startNode(__l)]
                     WHERE __from.id IN $ids OR {{can_see(__from)}} | [__from.id, __from.created_at.epochMillis]],
    stitch_children: [__to IN [__l IN __links WHERE type(__l) = 'STITCH' AND startNode(__l) = __m | endNode(__l)]
                      WHERE __to.id IN $ids OR {{can_see(__to)}} | [__to.id, __to.created_at.epochMillis]],
    channel_ids: [__l IN __links WHERE type(__l) = 'INCLUDES' AND startNode(__l).id IN viewer_channel_ids | startNode(__l).id],
    attachments: [__a IN __links WHERE type(__a) = 'ATTACHES'
                  | {file_id: endNode(__a).file_id, filename: endNode(__a).filename, content_type: endNode(__a).content_type,
                     size: endNode(__a).size, sha256: endNode(__a).sha256, position: __a.position}],
    is_saved: any(__l IN __links WHERE type(__l) = 'BOOKMARKED' AND startNode(__l).uid = $viewer_uid),
    reactions: [__name IN __reaction_names
                | {reaction: __name,
                   count: size([__reacted IN __shown_reactions WHERE __reacted.reaction = __name]),
                   first_ms: reduce(__first = null, __reacted IN __shown_reactions |
                                    CASE WHEN __reacted.reaction = __name AND (__first IS NULL OR __reacted.at < __first)
                                         THEN __reacted.at ELSE __first END).epochMillis,
                   me: any(__reacted IN __shown_reactions WHERE __reacted.reaction = __name AND startNode(__reacted).uid = $viewer_uid)}]
  } AS row
