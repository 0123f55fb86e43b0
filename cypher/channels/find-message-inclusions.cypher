// Every channel inclusion of the messages of $message_ids, with what decides whether its adder
// still sees the message once it is private: whether the adder wrote it or has a receivers edge on
// it, and which other channels holding it the adder belongs to. An inclusion without a recorded
// adder is reported with a null adder.
UNWIND $message_ids AS wanted
MATCH (m:Message {id: wanted})
MATCH (c:Channel)-[inclusion:INCLUDES]->(m)
WITH m, c, inclusion.added_by AS adder
RETURN m.id AS message_id,
       c.id AS channel_id,
       adder,
       adder IS NOT NULL
         AND (adder = m.author_uid OR EXISTS { MATCH (m)-[:RECEIVED_BY]->(:User {uid: adder}) }) AS adder_sees_it,
       COLLECT {
         MATCH (:User {uid: adder})<-[:HAS_MEMBER]-(other:Channel)-[:INCLUDES]->(m)
         WHERE other <> c
         RETURN other.id
       } AS adder_channel_ids
