// Sizes of a benchmark run: the profiles (smoke, small, large) and the command line that adjusts
// them. See docs/benchmarks.md.
import { parseArgs } from 'node:util';

export const WORKLOADS = [
  'post',
  'read',
  'views',
  'traverse',
  'context',
  'search',
  'fanout',
  'sockets',
  'webhooks',
  'scaleout',
  'amplification',
  'stream',
  'typing',
  'completions',
  // Last: it restarts Neo4j and the service (issue 52).
  'cold',
] as const;
export type Workload = (typeof WORKLOADS)[number];

export interface Profile {
  name: 'smoke' | 'small' | 'large';
  messages: number;
  users: number;
  channels: number;
  seed: number;
  viewerWritesIn: number;
  viewerReceivesIn: number;
  /** The viewer's big thread (traversal, tree-ids) and its spine length. */
  bigThread: number;
  bigThreadSpine: number;
  /** Seconds each measurement runs (Skein and the database limit; the bare server half of it). */
  duration: number;
  /** Connections (and database-limit workers) of the throughput workloads. */
  connections: number;
  /** Connections of the 100-item posts. */
  batchConnections: number;
  fanoutMembers: number;
  fanoutPosts: number;
  idleSockets: number;
  /** Deliveries in the webhook burst, spread over `webhookBots` bots. */
  webhookBurst: number;
  webhookBots: number;
  webhookSequential: number;
  neo4jHeap: string;
  neo4jPageCache: string;
  only: Set<Workload>;
  seedOnly: boolean;
  keep: boolean;
  outDir: string;
}

const BASE = {
  seed: 1,
  connections: 8,
  batchConnections: 4,
};

const PROFILES: Record<Profile['name'], Omit<Profile, 'only' | 'seedOnly' | 'keep' | 'outDir'>> = {
  smoke: {
    ...BASE,
    name: 'smoke',
    messages: 3000,
    users: 100,
    channels: 5,
    viewerWritesIn: 60,
    viewerReceivesIn: 80,
    bigThread: 600,
    bigThreadSpine: 300,
    // An autocannon run lasts at least a second whatever it is given; the database side takes 0.5 s.
    duration: 0.5,
    fanoutMembers: 20,
    fanoutPosts: 5,
    idleSockets: 100,
    webhookBurst: 50,
    webhookBots: 5,
    webhookSequential: 5,
    neo4jHeap: '512m',
    neo4jPageCache: '256m',
  },
  small: {
    ...BASE,
    name: 'small',
    messages: 20_000,
    users: 500,
    channels: 20,
    viewerWritesIn: 400,
    viewerReceivesIn: 500,
    bigThread: 2000,
    bigThreadSpine: 400,
    duration: 2.5,
    fanoutMembers: 1000,
    fanoutPosts: 15,
    idleSockets: 10_000,
    webhookBurst: 600,
    webhookBots: 20,
    webhookSequential: 20,
    neo4jHeap: '1g',
    neo4jPageCache: '512m',
  },
  large: {
    ...BASE,
    name: 'large',
    messages: 1_000_000,
    users: 10_000,
    channels: 1000,
    viewerWritesIn: 400,
    viewerReceivesIn: 500,
    bigThread: 10_000,
    bigThreadSpine: 1000,
    duration: 10,
    // The real-time core issue's second target: a 10,000-member channel, last socket p99 < 1 s.
    fanoutMembers: 10_000,
    fanoutPosts: 100,
    idleSockets: 10_000,
    webhookBurst: 4000,
    webhookBots: 20,
    webhookSequential: 100,
    neo4jHeap: '3g',
    neo4jPageCache: '3g',
  },
};

const USAGE = `npm run bench -- [options]
  --profile small|large   sizes (default small); --smoke: the smallest sizes, ~1 s per workload (CI)
  --messages N --users N --channels N   seeded store sizes
  --duration S            seconds per measurement
  --connections N         connections of the throughput workloads (default 8)
  --only LIST             comma-separated: ${WORKLOADS.join(',')}
  --fanout-members N --fanout-posts N --idle-sockets N --webhook-deliveries N
  --seed N                generator seed (default 1)
  --seed-only             seed the store and stop (to time the large profile's seeding)
  --neo4j-heap 2g --neo4j-pagecache 2g   embedded Neo4j memory
  --keep                  keep the temporary data directory
  --out DIR               results directory (default bench/results)
NEO4J_URI / NEO4J_PASSWORD: use that Neo4j instead of starting an embedded one (a store seeded by an
earlier run with the same sizes is reused).`;

export function parseProfile(argv: string[]): Profile {
  const { values } = parseArgs({
    args: argv,
    options: {
      profile: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      messages: { type: 'string' },
      users: { type: 'string' },
      channels: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      'fanout-members': { type: 'string' },
      'fanout-posts': { type: 'string' },
      'idle-sockets': { type: 'string' },
      'webhook-deliveries': { type: 'string' },
      seed: { type: 'string' },
      'seed-only': { type: 'boolean', default: false },
      'neo4j-heap': { type: 'string' },
      'neo4j-pagecache': { type: 'string' },
      keep: { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench/results' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const name = values.smoke ? 'smoke' : (values.profile ?? 'small');
  if (name !== 'small' && name !== 'large' && name !== 'smoke')
    throw new Error(`unknown profile ${name}\n${USAGE}`);
  const base = PROFILES[name];
  const num = (value: string | undefined, fallback: number, what: string): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${what} must be a positive number`);
    return n;
  };
  const only = new Set<Workload>();
  for (const item of (values.only ?? WORKLOADS.join(',')).split(',')) {
    const w = item.trim() as Workload;
    if (!WORKLOADS.includes(w)) throw new Error(`unknown workload ${item}; one of ${WORKLOADS.join(', ')}`);
    only.add(w);
  }
  const webhookBurst = Math.round(num(values['webhook-deliveries'], base.webhookBurst, 'webhook-deliveries'));
  const messages = Math.round(num(values.messages, base.messages, 'messages'));
  return {
    ...base,
    messages,
    users: Math.round(num(values.users, base.users, 'users')),
    channels: Math.round(num(values.channels, base.channels, 'channels')),
    // The big thread never takes more than a third of a smaller store.
    bigThread: Math.min(base.bigThread, Math.floor(messages / 3)),
    duration: num(values.duration, base.duration, 'duration'),
    connections: Math.round(num(values.connections, base.connections, 'connections')),
    fanoutMembers: Math.round(num(values['fanout-members'], base.fanoutMembers, 'fanout-members')),
    fanoutPosts: Math.round(num(values['fanout-posts'], base.fanoutPosts, 'fanout-posts')),
    idleSockets: Math.round(num(values['idle-sockets'], base.idleSockets, 'idle-sockets')),
    webhookBurst,
    seed: Math.round(num(values.seed, base.seed, 'seed')),
    neo4jHeap: values['neo4j-heap'] ?? base.neo4jHeap,
    neo4jPageCache: values['neo4j-pagecache'] ?? base.neo4jPageCache,
    only,
    seedOnly: values['seed-only'],
    keep: values.keep,
    outDir: values.out,
  };
}
