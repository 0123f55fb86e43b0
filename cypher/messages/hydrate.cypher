// Everything a MessageOutput shows, for the messages in $ids the viewer may see, as one row: `rows`
// (one per visible message, in no order) and `visible`, the ids among the messages and their
// neighbours (parent, root, reply children, stitches both ways) that the viewer may see.
// Neighbour lists come back unfiltered and the caller keeps those in `visible`: this judges each
// neighbour once, and not at all when it is one of the hydrated messages (a thread read hydrates
// parents and children together), where judging every list in its own subquery cost three times
// as much. A BCC recipient is listed only to the author, its adder and itself.
// Times come back as epoch milliseconds: the driver's DateTime decoding cost more than the query.
UNWIND $ids AS wanted
MATCH (m:Message {id: wanted})
WHERE {{can_see(m)}}
MATCH (author:User {uid: m.author_uid})
WITH collect({
       message: m {.id, .content, .subject, .public, .tags, .reply_order, .default_outgoing, .import_info_json,
                   created_ms: m.created_at.epochMillis},
       author: author {.uid, .user_tag},
       parent_id: m.parent_id,
       root_id: m.root_id,
       recipients: [(m)-[r:RECEIVED_BY]->(u:User)
                    WHERE r.public OR m.author_uid = $viewer_uid OR r.added_by = $viewer_uid OR u.uid = $viewer_uid
                    | {uid: u.uid, user_tag: u.user_tag, public: r.public, added_by: r.added_by,
                       read_ms: r.read_at.epochMillis, added_ms: r.added_at.epochMillis}],
       replies: [(m)-[:REPLY]->(child:Message) | [child.id, child.created_at.epochMillis]],
       stitch_parents: [(from:Message)-[:STITCH]->(m) | [from.id, from.created_at.epochMillis]],
       stitch_children: [(m)-[:STITCH]->(to:Message) | [to.id, to.created_at.epochMillis]],
       channel_ids: [(channel:Channel)-[:INCLUDES]->(m)
                     WHERE EXISTS { (channel)-[:HAS_MEMBER]->(:User {uid: $viewer_uid}) } | channel.id],
       attachments: [(m)-[a:ATTACHES]->(f:File)
                     | f {.file_id, .filename, .content_type, .size, .sha256, position: a.position}],
       is_saved: EXISTS { (:User {uid: $viewer_uid})-[:BOOKMARKED]->(m) }
     }) AS rows,
     collect(m.id) AS found
CALL (rows, found) {
  UNWIND rows AS row
  UNWIND [row.parent_id, row.root_id] + [n IN row.replies + row.stitch_parents + row.stitch_children | n[0]] AS other
  WITH DISTINCT other
  WHERE other IS NOT NULL AND NOT other IN found
  MATCH (n:Message {id: other})
  WHERE {{can_see(n)}}
  RETURN collect(n.id) AS others
}
RETURN rows, found + others AS visible
