// THE BCC rule, used as {{receiver_entry(r)}} for a (:Message)-[:RECEIVED_BY]->(:User) edge r: the
// entry of that recipient the viewer ($viewer_uid) is shown, {public, added_by, added_at,
// held_since}, or null when the viewer is shown none (decision 022). An edge holds one entry on top
// (its public, added_by, added_at) and, under it, the BCC entries it covers (covered_by, covered_at,
// oldest first): an add by someone who was shown no entry lays a new one over them, so that the add
// answers, lists and removes exactly as for a recipient who had none. The top entry is shown to
// everyone when it is CC, else to the message's author, its adder and the recipient; a covered
// entry only to its adder (the author and the recipient are shown the top). held_since is when the
// recipient got the edge: what it did on the message between then and the shown entry's added_at
// (its reactions) happened while hidden from this viewer.
CASE
  WHEN __m.public OR __m.added_by = $viewer_uid
       OR startNode(__m).author_uid = $viewer_uid OR endNode(__m).uid = $viewer_uid
    THEN {public: __m.public, added_by: __m.added_by, added_at: __m.added_at,
          held_since: coalesce(__m.held_since, __m.added_at)}
  WHEN $viewer_uid IN coalesce(__m.covered_by, [])
    THEN {public: false, added_by: $viewer_uid,
          added_at: __m.covered_at[[__i IN range(0, size(__m.covered_by) - 1) WHERE __m.covered_by[__i] = $viewer_uid][0]],
          held_since: __m.held_since}
END
