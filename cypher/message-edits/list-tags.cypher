// Distinct tags, sorted, across every message the viewer may see.
MATCH (m:Message)
WHERE size(coalesce(m.tags, [])) > 0 AND {{can_see(m)}}
UNWIND m.tags AS tag
RETURN DISTINCT tag
ORDER BY tag
