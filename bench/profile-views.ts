// PROFILEs each read-view query (cypher/threads/*) for the `bench-viewer` user of a store seeded by
// bench/seed-views.ts, and prints each plan's operators (rows, db hits), the total db hits and the
// median wall time of ten warm runs. Its output is what docs/views-query-plans.md summarises.
//
//   NEO4J_URI=bolt://127.0.0.1:7687 NEO4J_PASSWORD=... npx tsx bench/profile-views.ts
import neo4j, { type ProfiledPlan } from 'neo4j-driver';
import { PARTICIPATION_SLACK_MS } from '../src/components/messages/participation-slack.js';
import { cypher } from '../src/platform/neo4j/cypher.js';
import { Database } from '../src/platform/neo4j/database.js';

interface Case {
  title: string;
  query: string;
  params: Record<string, unknown>;
}

const int = (n: number) => neo4j.int(n);
/** The timeline's lower time bound (the export narrows it; the views do not). */
const EPOCH = '1970-01-01T00:00:00.000Z';
const page = (skip: number, limit: number) => ({
  skip: int(skip),
  take: int(limit + 1),
  cap: int(skip + limit + 1),
  cap_less_one: int(skip + limit),
});

function printPlan(plan: ProfiledPlan, depth = 0): number {
  const details = String(plan.arguments?.Details ?? '').replace(/\s+/g, ' ');
  const order = plan.arguments?.Order ? ` [order ${String(plan.arguments.Order)}]` : '';
  console.log(
    `${'  '.repeat(depth)}${plan.operatorType.replace(/@.*$/, '')} rows=${plan.rows} hits=${plan.dbHits}` +
      `${order}${details ? `  ${details.slice(0, 160)}` : ''}`,
  );
  return plan.dbHits + plan.children.reduce((sum, child) => sum + printPlan(child, depth + 1), 0);
}

async function main(): Promise<void> {
  const uri = process.env.NEO4J_URI;
  const password = process.env.NEO4J_PASSWORD;
  if (!uri || !password) throw new Error('set NEO4J_URI and NEO4J_PASSWORD');
  const db = Database.connect({
    uri,
    user: process.env.NEO4J_USER ?? 'neo4j',
    password,
    database: undefined,
  });
  try {
    // The viewer, their first channel, and the traversal origins in the viewer's own threads (see
    // bench/seed-views.ts): the wide thread's root, a message inside it that has a parent and
    // children, one with stitches both ways, and the chain's root.
    const [viewer] = await db.runText(
      `MATCH (u:User {user_tag: 'bench-viewer'})
       OPTIONAL MATCH (u)<-[:HAS_MEMBER]-(c:Channel)
       WITH u, collect(c.id)[0] AS channel_id
       CALL (u) {
         MATCH (r:Message)
         WHERE r.author_uid = u.uid AND r.created_at IS NOT NULL AND r.parent_id IS NULL
         CALL (r) { MATCH (t:Message) WHERE t.root_id = r.id RETURN count(t) AS n }
         WITH r, n ORDER BY n DESC LIMIT 2
         RETURN collect(r.id) AS roots
       }
       CALL (roots) {
         MATCH (:Message)-[:REPLY]->(m:Message {root_id: roots[0]})-[:REPLY]->(:Message)
         RETURN m.id AS inner_id LIMIT 1
       }
       CALL (roots) {
         MATCH (:Message)-[:STITCH]->(m:Message {root_id: roots[0]})-[:STITCH]->(:Message)
         RETURN m.id AS stitched_id LIMIT 1
       }
       RETURN u.uid AS uid, channel_id, roots[0] AS tree_root, roots[1] AS chain_root, inner_id, stitched_id`,
    );
    const [counts] = await db.runText(
      `CALL () { MATCH (m:Message) RETURN count(m) AS messages }
       CALL () { MATCH (:User {uid: $uid})<-[:RECEIVED_BY]-(m) RETURN count(DISTINCT m.root_id) AS received_threads }
       CALL () { MATCH (m:Message {author_uid: $uid}) RETURN count(DISTINCT m.root_id) AS written_threads }
       CALL () { MATCH (m:Message {public: true}) RETURN count(m) AS public_messages }
       RETURN messages, received_threads, written_threads, public_messages`,
      { uid: viewer!.uid },
    );
    console.log('store', counts, 'viewer', viewer);
    const uid = viewer!.uid as string;
    const traverse = {
      viewer_uid: uid,
      origin_id: viewer!.inner_id,
      up_depth: int(2),
      down_depth: int(2),
      edge: 'REPLY',
      get_children: false,
      default_path_only: false,
      max_nodes: int(2000),
    };
    const cases: Case[] = [
      {
        title: 'timeline, first page (limit 15)',
        query: 'threads/timeline',
        params: { viewer_uid: uid, since: EPOCH, ...page(0, 15) },
      },
      {
        title: 'timeline, page 7 (skip 90, limit 15)',
        query: 'threads/timeline',
        params: { viewer_uid: uid, since: EPOCH, ...page(90, 15) },
      },
      {
        title: 'timeline in a channel (limit 15)',
        query: 'threads/timeline-in-channel',
        params: { viewer_uid: uid, channel_id: viewer!.channel_id, since: EPOCH, ...page(0, 15) },
      },
      {
        title: 'inbox (limit 15)',
        query: 'threads/inbox',
        params: { viewer_uid: uid, unread_only: false, ...page(0, 15) },
      },
      {
        title: 'inbox, unread_only (limit 15)',
        query: 'threads/inbox',
        params: { viewer_uid: uid, unread_only: true, ...page(0, 15) },
      },
      {
        title: 'inbox in a channel (limit 15)',
        query: 'threads/inbox-in-channel',
        params: { viewer_uid: uid, channel_id: viewer!.channel_id, unread_only: false, ...page(0, 15) },
      },
      {
        title: 'history (limit 6)',
        query: 'threads/history',
        params: { viewer_uid: uid, slack_ms: int(PARTICIPATION_SLACK_MS), ...page(0, 6) },
      },
      {
        title: 'history in a channel (limit 6)',
        query: 'threads/history-in-channel',
        params: { viewer_uid: uid, channel_id: viewer!.channel_id, ...page(0, 6) },
      },
      { title: 'public (limit 15)', query: 'threads/public', params: { viewer_uid: null, ...page(0, 15) } },
      {
        title: 'public, page 7 (skip 90, limit 15)',
        query: 'threads/public',
        params: { viewer_uid: null, ...page(90, 15) },
      },
      { title: 'tree-ids', query: 'threads/tree-ids', params: { viewer_uid: uid, ids: [viewer!.inner_id] } },
      { title: 'traverse, replies, 2 up / 2 down', query: 'threads/traverse', params: traverse },
      {
        title: 'traverse, replies, down 100 from the root of the 2000-message thread, get_children',
        query: 'threads/traverse',
        params: { ...traverse, origin_id: viewer!.tree_root, down_depth: int(100), get_children: true },
      },
      {
        title: 'traverse, replies, down 100 along the 150-message chain',
        query: 'threads/traverse',
        params: { ...traverse, origin_id: viewer!.chain_root, down_depth: int(100) },
      },
      {
        title: 'traverse, links, 5 up / 5 down among 500 random stitches',
        query: 'threads/traverse',
        params: {
          ...traverse,
          origin_id: viewer!.stitched_id,
          up_depth: int(5),
          down_depth: int(5),
          edge: 'STITCH',
        },
      },
    ];

    for (const c of cases) {
      const text = cypher(c.query);
      const session = db.driver.session({ defaultAccessMode: neo4j.session.READ });
      try {
        for (let i = 0; i < 3; i++) await session.run(text, c.params); // warm plan cache and page cache
        const times: number[] = [];
        let rows = '';
        for (let i = 0; i < 10; i++) {
          const began = process.hrtime.bigint();
          const records = (await session.run(text, c.params)).records;
          // Traversal and tree-ids answer one row; what counts there is how many ids it holds.
          const first = records[0];
          if (first?.has('nodes')) rows = `${(first.get('nodes') as unknown[]).length} messages`;
          else if (first?.has('ids')) rows = `${(first.get('ids') as unknown[]).length} ids`;
          else rows = `${records.length} rows`;
          times.push(Number(process.hrtime.bigint() - began) / 1e6);
        }
        times.sort((a, b) => a - b);
        const profiled = await session.run(`PROFILE ${text}`, c.params);
        console.log(`\n## ${c.title} (${c.query}): ${rows}, median ${times[5]!.toFixed(1)} ms`);
        const total = printPlan(profiled.summary.profile as ProfiledPlan);
        console.log(`total db hits: ${total}`);
      } finally {
        await session.close();
      }
    }
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
