// THE root_id a message __m shows to the viewer ($viewer_uid), used as {{shown_root(m)}} on a
// message the viewer may see, by the answers that name a thread root outside MessageOutput (tree
// ids, unread counts); message-output.ts applies the same rule to hydrated rows, whose parents and
// roots are judged once per distinct id (visible-lineage.cypher). Judged from what the viewer may
// see, so that it never tells a hidden ancestor (security review 2026-12-02, #4):
// - a message the viewer sees as a root (seen-as-root.cypher: no parent, or one it may not see)
//   shows its own id, as a real root does;
// - below a parent it sees, the stored thread root when the viewer may see it (no walk: the common
//   case costs one lookup at most, none when the parent is the root);
// - else the topmost ancestor reached through parents it sees (visible-top.cypher).
// Accepted: with the stored root visible, a hidden message between it and __m does not stop the
// answer from naming the root (walking every reply for it would cost each page a walk).
CASE
  WHEN {{seen_as_root(__m)}} THEN __m.id
  WHEN __m.parent_id = __m.root_id
       OR EXISTS { MATCH (__root:Message {id: __m.root_id}) WHERE {{can_see(__root)}} } THEN __m.root_id
  ELSE {{visible_top(__m)}}
END
