// THE rule of who is shown a reaction, used as {{reaction_shown(r)}} where r is a
// (:User)-[:REACTED]->(:Message) edge of a message the viewer ($viewer_uid) can see: in its counts
// and in the list of who reacted. A reaction counts while its reactor can still see the message (a
// recipient removed since, or a message made private again, hides it; it comes back with access).
// A reactor who holds a BCC entry on the message is shown only where that entry is shown
// (hydrate.cypher's recipients): to the author, the entry's adder and the reactor, since anyone else
// would learn of the BCC from the reaction. The events a reaction records follow the same line
// (src/components/reactions/react-to-message.ts).
EXISTS {
  MATCH (__reactor:User)-[__m]->(__message:Message)
  WITH __reactor, __message, __reactor.uid AS __reactor_uid
  WHERE {{can_see(__message, __reactor_uid)}}
    AND (__reactor_uid = $viewer_uid
         OR __message.author_uid IN [$viewer_uid, __reactor_uid]
         OR NOT EXISTS { MATCH (__message)-[__bcc:RECEIVED_BY {public: false}]->(__reactor)
                         WHERE NOT coalesce(__bcc.added_by = $viewer_uid, false) })
}
