// THE row of everything a MessageOutput shows of message __m to the viewer ($viewer_uid), used as
// {{hydrated_message(m)}} by hydrated-rows.cypher and by write-post.cypher (whose answer to the
// poster is built in its own statement): WITH clauses, after the last of which `row` is the only
// variable in scope. Needs in scope: `author`, the message's author node; `viewer_channel_ids`,
// the ids of the viewer's channels, read once from the viewer (asked per channel, "is the viewer a
// member?", the planner walked every member of the message's channels: 1,000 rows for a post into
// a 1,000-member channel); and `hydrated_ids`, the ids of the messages hydrated together (a
// variable, not a parameter, so that a view can hydrate the page it found in the same statement).
// The message's edges of the listed types are read in one expand, and every list is cut from that
// one list with expressions: each list as a pattern of its own was one more Apply per message,
// and in Community's slotted runtime a plan's cost per row is mostly its number of operators (eight
// subqueries per message cost a fifth more database time than one expand, most lists being empty).
// The parent's and the root's ids are given unjudged: the caller judges them after the rows, once
// per distinct id ({{visible_lineage(rows)}}). A neighbour in a list (reply child, stitch either
// way) that is itself in hydrated_ids is not judged here: it is visible exactly when it comes back
// as a row of its own, which the caller checks (message-output.ts). Every other one is judged by
// the visibility rule. Each recipient is listed with the entry the viewer is shown, if any (the
// BCC rule, receiver-entry.cypher). Times are epoch milliseconds: the driver's DateTime decoding
// cost more than the query. Reactions come counted per reaction from the edges the reaction-shown
// rule keeps (grouped here by expressions: an aggregating COLLECT inside the map is refused, as
// Neo4j 5.26 takes its count() for the map's own), never one row per reactor.
// The row is a list of lists in a fixed order, not a map (message-output.ts names the positions):
// the driver decodes every map key as a string and builds every map as an object property by
// property, and decoding was a third of the service's CPU on a page read. By position, the
// service spent 12% less CPU on a page of 50 and 8% less on a thread read (2026-11-29, A/B).
WITH __m, author, viewer_channel_ids, hydrated_ids,
     [(__m)-[__link:RECEIVED_BY|REPLY|STITCH|INCLUDES|ATTACHES|BOOKMARKED|REACTED]-(__other) | __link] AS __links
WITH __m, author, viewer_channel_ids, hydrated_ids, __links,
     [__reacted IN __links WHERE type(__reacted) = 'REACTED' AND {{reaction_shown(__reacted)}}] AS __shown_reactions
WITH __m, author, viewer_channel_ids, hydrated_ids, __links, __shown_reactions,
     reduce(__names = [], __reacted IN __shown_reactions |
            CASE WHEN __reacted.reaction IN __names THEN __names ELSE __names + __reacted.reaction END) AS __reaction_names
WITH [
    [__m.id, __m.content, __m.subject, __m.public, __m.tags, __m.reply_order, __m.default_outgoing,
     __m.import_info_json, __m.created_at.epochMillis, __m.edited_at.epochMillis, __m.stream_json],
    [author.uid, author.user_tag],
    __m.parent_id,
    __m.root_id,
    [__listed IN [__r IN __links WHERE type(__r) = 'RECEIVED_BY'
                  | [endNode(__r).uid, endNode(__r).user_tag, __r.read_at.epochMillis, {{receiver_entry(__r)}}]]
     WHERE __listed[3] IS NOT NULL
     | [__listed[0], __listed[1], __listed[3].public, __listed[3].added_by, __listed[2], __listed[3].added_at.epochMillis]],
    [__child IN [__l IN __links WHERE type(__l) = 'REPLY' AND startNode(__l) = __m | endNode(__l)]
     WHERE __child.id IN hydrated_ids OR {{can_see(__child)}} | [__child.id, __child.created_at.epochMillis]],
    [__from IN [__l IN __links WHERE type(__l) = 'STITCH' AND endNode(__l) = __m | startNode(__l)]
     WHERE __from.id IN hydrated_ids OR {{can_see(__from)}} | [__from.id, __from.created_at.epochMillis]],
    [__to IN [__l IN __links WHERE type(__l) = 'STITCH' AND startNode(__l) = __m | endNode(__l)]
     WHERE __to.id IN hydrated_ids OR {{can_see(__to)}} | [__to.id, __to.created_at.epochMillis]],
    [__l IN __links WHERE type(__l) = 'INCLUDES' AND startNode(__l).id IN viewer_channel_ids | startNode(__l).id],
    [__a IN __links WHERE type(__a) = 'ATTACHES'
     | [endNode(__a).file_id, endNode(__a).filename, endNode(__a).content_type, endNode(__a).size,
        endNode(__a).sha256, __a.position]],
    any(__l IN __links WHERE type(__l) = 'BOOKMARKED' AND startNode(__l).uid = $viewer_uid),
    [__name IN __reaction_names
     | [__name,
        size([__reacted IN __shown_reactions WHERE __reacted.reaction = __name]),
        reduce(__first = null, __reacted IN __shown_reactions |
               CASE WHEN __reacted.reaction = __name AND (__first IS NULL OR __reacted.at < __first)
                    THEN __reacted.at ELSE __first END).epochMillis,
        any(__reacted IN __shown_reactions WHERE __reacted.reaction = __name AND startNode(__reacted).uid = $viewer_uid)]]
  ] AS row
