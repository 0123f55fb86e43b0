// Removes the caller's own stitch from -> to, or with $any_stitcher (the FROM message's author or
// manager) every stitch between them. Answers what was removed, the caller's own first.
MATCH (:Message {id: $from_id})-[s:STITCH]->(:Message {id: $to_id})
WHERE s.by = $viewer_uid OR $any_stitcher
WITH s, s.by AS stitched_by, s.at AS created_at
ORDER BY stitched_by = $viewer_uid DESC, created_at
WITH collect(s) AS stitches, collect({stitched_by: stitched_by, created_at: created_at}) AS removed
FOREACH (s IN stitches | DELETE s)
RETURN removed
