// THE visibility rule (spec "Visibility rule"), used by every query through {{can_see(<var>)}}:
// a viewer ($viewer_uid, null when anonymous) can read a message when it is public, or the viewer
// wrote it, or the viewer has a receivers edge on it, or it is in a channel the viewer belongs to.
// The channel ground starts from the viewer's memberships and checks each channel's inclusion of
// the message with Expand(Into): written as one pattern from the message, the planner may (and on
// fresh statistics did) walk every member of the message's channels, which made judging a message
// for all 1 000 members of a channel cost 500 000 rows.
(__m.public = true
 OR __m.author_uid = $viewer_uid
 OR EXISTS { MATCH (__m)-[:RECEIVED_BY]->(:User {uid: $viewer_uid}) }
 OR EXISTS { MATCH (:User {uid: $viewer_uid})<-[:HAS_MEMBER]-(__channel:Channel) WHERE EXISTS { (__channel)-[:INCLUDES]->(__m) } })
