// THE rule of who is shown a reaction, used as {{reaction_shown(r)}} where r is a
// (:User)-[:REACTED]->(:Message) edge of a message the viewer ($viewer_uid) can see: in its counts
// and in the list of who reacted. A reaction counts while its reactor can still see the message (a
// recipient removed since, or a message made private again, hides it; it comes back with access).
// A reactor who holds a receivers edge on the message is shown only where an entry of it is shown
// (receiver-entry.cypher: a BCC entry to the author, its adder and the reactor), since anyone else
// would learn of the BCC from the reaction; and a reaction made while the reactor's edge was hidden
// from the viewer (from held_since until the shown entry was laid over it, decision 022) stays
// hidden, or adding the reactor would reveal that it had been a recipient before. The events a
// reaction records follow the same line (src/components/reactions/react-to-message.ts).
EXISTS {
  MATCH (__reactor:User)-[__m]->(__message:Message)
  WITH __reactor, __message, __reactor.uid AS __reactor_uid, __m.at AS __reacted_at
  WHERE {{can_see(__message, __reactor_uid)}}
    AND (__reactor_uid = $viewer_uid
         OR __message.author_uid IN [$viewer_uid, __reactor_uid]
         OR all(__entry IN [(__message)-[__edge:RECEIVED_BY]->(__reactor) | {{receiver_entry(__edge)}}]
                WHERE __entry IS NOT NULL
                  AND NOT (__entry.held_since <= __reacted_at AND __reacted_at < __entry.added_at)))
}
