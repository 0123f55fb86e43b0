// Who reacted to a message the viewer can see, per reaction ($reaction, or every one), each
// reactor judged by the reaction-shown rule: the count, whether the viewer is among them, the first
// use, and one page of reactors, earliest first (one more than $limit tells whether more follow),
// each with whether the viewer manages it (what its UserOutput may show, managed-user-policy.ts).
// No row when the message is missing or invisible.
MATCH (m:Message {id: $id})
WHERE {{can_see(m)}}
RETURN m.id AS id,
       COLLECT {
         MATCH (reactor:User)-[r:REACTED]->(m)
         WHERE ($reaction IS NULL OR r.reaction = $reaction) AND {{reaction_shown(r)}}
         WITH r.reaction AS reaction, r.at AS at, reactor
         ORDER BY at, reactor.uid
         WITH reaction, collect(reactor) AS reactors, min(at) AS first_at
         RETURN {reaction: reaction, count: size(reactors), first_ms: first_at.epochMillis,
                 me: any(u IN reactors WHERE u.uid = $viewer_uid),
                 users: [u IN reactors[toInteger($skip)..toInteger($skip) + toInteger($limit) + 1] |
                         u {.uid, .user_tag, .display_name, .bio, .is_managed, .is_bot, .has_api_access,
                            .created_at, .bot_modalities, .bot_integrations, .bot_versions, .context_origin_id,
                            viewer_manages: EXISTS { MATCH (:User {uid: $viewer_uid})-[:MANAGES]->(u) }}]}
       } AS reactions
