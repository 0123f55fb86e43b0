// Seeds a store for profiling the read views (docs/views-query-plans.md) with the generator of
// bench/lib/dataset.ts: users, channels and a forest of branching threads, written straight through
// Cypher UNWIND batches for speed.
//
//   NEO4J_URI=bolt://127.0.0.1:7687 NEO4J_PASSWORD=... npx tsx bench/seed-views.ts --messages 100000
//
// Options: --messages N (100000), --users N (2000), --threads N (messages / 5), --seed N (1).
// One user, tag `bench-viewer`, is given about a thousand threads of their own (see dataset.ts).
// The viewer also owns a wide thread of 2000 messages (with 500 random stitches between them) and
// a 150-message reply chain, for the traversal profiles. 50 channels of 20 members. The schema
// (cypher/schema/*) is applied first. Run it against an empty database.
import { parseArgs } from 'node:util';
import { createLogger } from '../src/platform/logger.js';
import { Database } from '../src/platform/neo4j/database.js';
import { applySchema } from '../src/platform/neo4j/schema-setup.js';
import { generateDataset, writeDataset } from './lib/dataset.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '100000' },
    users: { type: 'string', default: '2000' },
    threads: { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});

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
    await applySchema(db, createLogger('warn'));
    const data = generateDataset({
      messages: Number(values.messages),
      users: Number(values.users),
      channels: 50,
      ...(values.threads ? { threads: Number(values.threads) } : {}),
      seed: Number(values.seed),
      viewerWritesIn: 400,
      viewerReceivesIn: 500,
      channelMembers: 20,
      ownThreads: [
        { size: 2000, spine: 1, stitches: 500 },
        { size: 150, spine: 150, stitches: 0 },
      ],
    });
    const began = Date.now();
    await writeDataset(db, data, ({ label, done, total }) => {
      if (done === total) console.log(`${label}: ${total}`);
    });
    console.log(`seeded in ${((Date.now() - began) / 1000).toFixed(1)} s; viewer uid ${data.viewer.uid}`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
