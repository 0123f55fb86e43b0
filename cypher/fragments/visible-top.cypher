// The topmost message reached from __m by going up reply parents the viewer ($viewer_uid) may see,
// used as {{visible_top(m)}}: the id of the last message before the first parent the viewer may not
// see, or of the thread's top when it sees them all; __m's own id when it has no parent or may not
// see it. The walk up is found without judging (a message has at most one parent), then judged
// lazily from __m upwards, each step only while the chain is still open, as read-context.cypher
// walks ancestors. shown-root.cypher and visible-lineage.cypher call it only for a message whose
// parent the viewer sees and whose stored root it does not, which is rare; it costs a step per
// ancestor up to the first hidden one.
coalesce(COLLECT {
  MATCH __chain = (__m)<-[:REPLY*]-(__top:Message)
  WHERE NOT EXISTS { MATCH (:Message)-[:REPLY]->(__top) }
  RETURN reduce(__walk = {top: __m, open: true}, __up IN tail(nodes(__chain)) |
           CASE WHEN NOT __walk.open THEN __walk
                WHEN {{can_see(__up)}} THEN {top: __up, open: true}
                ELSE {top: __walk.top, open: false} END).top.id AS __top_id
}[0], __m.id)
