// THE visibility rule (spec "Visibility rule"), used by every query through {{can_see(<var>)}}:
// a viewer ($viewer_uid, null when anonymous) can read a message when it is public, or the viewer
// wrote it, or the viewer has a receivers edge on it, or it is in a channel the viewer belongs to.
(__m.public = true
 OR __m.author_uid = $viewer_uid
 OR EXISTS { MATCH (__m)-[:RECEIVED_BY]->(:User {uid: $viewer_uid}) }
 OR EXISTS { MATCH (__viewer:User {uid: $viewer_uid}) MATCH (__m)<-[:INCLUDES]-(:Channel)-[:HAS_MEMBER]->(__viewer) })
