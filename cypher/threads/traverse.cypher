// Traversal from a visible origin along one edge type ($edge: 'REPLY' or 'STITCH'): ancestors up to
// $up_depth hops (reply parents, or incoming stitches) and descendants up to $down_depth hops
// (reply children, or outgoing stitches). With $default_path_only a walk takes only default edges,
// those from a message to the child its default_outgoing names (decision 027): downward each
// message's default child (a single chain), upward only the parents whose default child is the
// message below (incoming defaults: the messages whose default chain leads to the origin; by
// stitches several may, by replies at most the one parent). Both walks are breadth-first, one level
// per reduce() step, so they stop at the asked depth, never revisit a message (stitches may form
// cycles), and never step onto a message the viewer may not see: an invisible ancestor ends the
// upward walk, an invisible child prunes its subtree. The default test is made only between two
// visible messages, so it tells nothing the viewer's own `default_outgoing` fields do not. Each walk
// stops growing once it has $max_nodes messages.
// With $get_children, the one-hop children of every walked message that are not walked yet join at
// their parent's depth + 1. The answer is then bounded as a whole, extras included: the $max_nodes
// nearest messages (by |depth|, downward first on a tie, then id), and of those only the nearest
// whose contents fit in $max_chars characters together (the origin always). `truncated` tells that
// something was cut, or that a walk stopped at its cap. Edges are those of the edge type between
// returned messages. The walks keep the nodes they reached, so nothing is looked up by id again
// (a fifth of the statement's time for a 50-reply thread, 2026-11-29), and the answer is positional:
// nodes as [id, depth], edges as [from, to].
MATCH (origin:Message {id: $origin_id})
WHERE {{can_see(origin)}}
WITH origin,
  reduce(walk = {frontier: [origin], seen: [origin.id], found: []}, depth IN range(1, $up_depth) |
    CASE
      WHEN size(walk.frontier) = 0 OR size(walk.seen) > $max_nodes THEN walk
      ELSE head([level IN [
          reduce(fresh = [], above IN reduce(reached = [], below IN walk.frontier |
              reached + [(p:Message)-[r:REPLY|STITCH]->(below)
                         WHERE type(r) = $edge
                           AND (NOT $default_path_only OR p.default_outgoing = below.id)
                           AND {{can_see(p)}} | p]) |
            CASE WHEN above IN fresh OR above.id IN walk.seen THEN fresh ELSE fresh + above END)
        ] | {
          frontier: level,
          seen: walk.seen + [n IN level | n.id],
          found: walk.found + [n IN level | {node: n, depth: -depth}]
        }])
    END
  ) AS up,
  reduce(walk = {frontier: [origin], seen: [origin.id], found: []}, depth IN range(1, $down_depth) |
    CASE
      WHEN size(walk.frontier) = 0 OR size(walk.seen) > $max_nodes THEN walk
      ELSE head([level IN [
          reduce(fresh = [], below IN reduce(reached = [], above IN walk.frontier |
              reached + [(above)-[r:REPLY|STITCH]->(c:Message)
                         WHERE type(r) = $edge
                           AND (NOT $default_path_only OR c.id = above.default_outgoing)
                           AND {{can_see(c)}} | c]) |
            CASE WHEN below IN fresh OR below.id IN walk.seen THEN fresh ELSE fresh + below END)
        ] | {
          frontier: level,
          seen: walk.seen + [n IN level | n.id],
          found: walk.found + [n IN level | {node: n, depth: depth}]
        }])
    END
  ) AS down
WITH origin, up, down, size(up.seen) > $max_nodes OR size(down.seen) > $max_nodes AS walk_cut
// A message reached both ways (only possible through a cycle of stitches) keeps the nearer depth,
// and the downward one on a tie.
UNWIND [{node: origin, depth: 0}] + up.found[..$max_nodes] + down.found[..$max_nodes] AS step
WITH walk_cut, step.node AS node, collect(step.depth) AS depths
WITH walk_cut, node, reduce(best = head(depths), d IN depths |
  CASE WHEN abs(d) < abs(best) OR (abs(d) = abs(best) AND d > best) THEN d ELSE best END) AS depth
WITH walk_cut, collect({node: node, depth: depth}) AS walked
WITH walk_cut, walked, [w IN walked | w.node] AS walked_nodes
CALL (walked, walked_nodes) {
  UNWIND CASE WHEN $get_children THEN walked ELSE [] END AS parent
  WITH parent.node AS above, parent.depth AS above_depth
  MATCH (above)-[r:REPLY|STITCH]->(c:Message)
  WHERE type(r) = $edge AND NOT c IN walked_nodes AND {{can_see(c)}}
  WITH c, min(above_depth) + 1 AS depth
  RETURN collect({node: c, depth: depth}) AS extra
}
UNWIND walked + extra AS reached
WITH walk_cut, reached.node AS m, reached.depth AS depth
WITH walk_cut, m, depth, m.id AS id, size(coalesce(m.content, '')) AS chars
ORDER BY abs(depth), depth DESC, id
WITH walk_cut, collect({node: m, id: id, depth: depth, chars: chars}) AS ordered
WITH walk_cut, ordered, reduce(acc = {kept: [], chars: 0, full: false}, n IN ordered[..$max_nodes] |
  CASE
    WHEN acc.full OR (size(acc.kept) > 0 AND acc.chars + n.chars > $max_chars)
      THEN {kept: acc.kept, chars: acc.chars, full: true}
    ELSE {kept: acc.kept + [n], chars: acc.chars + n.chars, full: false}
  END) AS cut
WITH cut.kept AS kept, walk_cut OR size(cut.kept) < size(ordered) AS truncated
WITH kept, truncated, [n IN kept | n.node] AS kept_nodes
CALL (kept, kept_nodes) {
  UNWIND kept AS from
  WITH from.node AS a
  MATCH (a)-[r:REPLY|STITCH]->(b:Message)
  WHERE type(r) = $edge AND b IN kept_nodes
  RETURN collect(DISTINCT [a.id, b.id]) AS edges
}
RETURN [n IN kept | [n.id, n.depth]] AS nodes, edges, truncated
