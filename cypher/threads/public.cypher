// Public view: for each thread with a public message, its newest public message; newest first, one
// page (+1). A descending scan of the (public, created_at) index keeps a message only when no newer
// public message shares its root (a seek on (root_id, created_at)), and stops after the page
// (ordering by `public` first is what lets the planner use the index order).
MATCH (m:Message)
WHERE m.public = true AND m.created_at IS NOT NULL
  AND {{can_see(m)}}
  AND NOT EXISTS {
    MATCH (newer:Message)
    WHERE newer.root_id = m.root_id AND newer.created_at >= m.created_at AND newer.public = true
      AND (newer.created_at > m.created_at OR newer.id > m.id)
  }
RETURN m.id AS id
ORDER BY m.public DESC, m.created_at DESC, m.id DESC
SKIP $skip LIMIT $take
