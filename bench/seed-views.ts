// Seeds a store for profiling the read views (docs/views-query-plans.md): users, channels and a
// forest of branching threads, written straight through Cypher UNWIND batches for speed.
//
//   NEO4J_URI=bolt://127.0.0.1:7687 NEO4J_PASSWORD=... npx tsx bench/seed-views.ts --messages 100000
//
// Options: --messages N (100000), --users N (2000), --threads N (messages / 5), --seed N (1).
// One user, tag `bench-viewer`, is given about a thousand threads of their own: messages they wrote
// (some with recipients), messages they receive (half of them read), and two channels; about 1% of
// all messages are public. The viewer also owns a wide thread of 2000 messages (with 500 random
// stitches between them) and a 150-message reply chain, for the traversal profiles. Everything
// else is spread over random users. The schema
// (cypher/schema/*) is applied first. Run it against an empty database.
import { parseArgs } from 'node:util';
import { createLogger } from '../src/platform/logger.js';
import { Database } from '../src/platform/neo4j/database.js';
import { applySchema } from '../src/platform/neo4j/schema-setup.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '100000' },
    users: { type: 'string', default: '2000' },
    threads: { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});
const MESSAGES = Number(values.messages);
const USERS = Number(values.users);
const THREADS = Number(values.threads ?? Math.round(MESSAGES / 5));
const CHANNELS = 50;
const VIEWER_TAG = 'bench-viewer';
const VIEWER_WRITES_IN = 400; // threads the viewer writes in (a third of them as the root's author)
const VIEWER_RECEIVES_IN = 500; // threads with a message the viewer is a recipient of
const PUBLIC_SHARE = 0.01;
const INCLUDED_SHARE = 0.03;
const TREE = 2000; // a wide thread of the viewer's own, for the traversal profiles
const CHAIN = 150; // a reply chain of the viewer's own, deeper than the deepest traversal
const STITCHES = 500; // random stitches between messages of the wide thread
const BATCH = 10_000;

// A small deterministic generator (mulberry32), so two runs seed the same store.
let state = Number(values.seed) >>> 0;
function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
const hex8 = (n: number, salt: number) => ((n * 2654435761 + salt) >>> 0).toString(16).padStart(8, '0');

interface SeedUser {
  uid: string;
  user_tag: string;
  tag_folded: string;
}
interface SeedMessage {
  id: string;
  content: string;
  public: boolean;
  created_at: string;
  author_uid: string;
  parent_id: string | null;
  root_id: string;
}

function generate() {
  const users: SeedUser[] = Array.from({ length: USERS }, (_, i) => {
    const tag = i === 0 ? VIEWER_TAG : `bench-user-${i}`;
    return { uid: hex8(i + 1, 0x5eed), user_tag: tag, tag_folded: tag };
  });
  const viewer = users[0]!;
  const others = users.slice(1);

  // Messages in time order: a new thread with probability THREADS / MESSAGES, else a reply to a
  // random message of a random earlier thread, so threads branch and stay active for a while.
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  const step = Math.floor((365 * 24 * 3600 * 1000) / MESSAGES);
  const threads: SeedMessage[][] = [];
  const messages: SeedMessage[] = [];
  const mainCount = MESSAGES - TREE - CHAIN;
  for (let i = 0; i < mainCount; i++) {
    const id = hex8(i + 1, 0xc0ffee);
    const created_at = new Date(start + i * step).toISOString();
    const base = { id, content: `message ${i}`, public: random() < PUBLIC_SHARE, created_at };
    let message: SeedMessage;
    if (threads.length === 0 || random() < THREADS / MESSAGES) {
      message = { ...base, author_uid: pick(others).uid, parent_id: null, root_id: id };
      threads.push([message]);
    } else {
      const thread = pick(threads);
      const parent = pick(thread);
      message = { ...base, author_uid: pick(others).uid, parent_id: parent.id, root_id: parent.root_id };
      thread.push(message);
    }
    messages.push(message);
  }

  // The traversal threads, written by the viewer over the same year: in the wide one each message
  // replies to a random earlier one; the chain replies to its previous message each time.
  const ownThread = (count: number, first: number, parentOf: (earlier: SeedMessage[]) => SeedMessage) => {
    const own: SeedMessage[] = [];
    for (let k = 0; k < count; k++) {
      const id = hex8(first + k + 1, 0xc0ffee);
      const created_at = new Date(start + Math.floor((k * 365 * 24 * 3600 * 1000) / count) + 1).toISOString();
      const parent = k === 0 ? null : parentOf(own);
      own.push({
        id,
        content: `own ${first + k}`,
        public: false,
        created_at,
        author_uid: viewer.uid,
        parent_id: parent?.id ?? null,
        root_id: parent?.root_id ?? id,
      });
    }
    messages.push(...own);
    return own;
  };
  const tree = ownThread(TREE, mainCount, (earlier) => pick(earlier));
  ownThread(CHAIN, mainCount + TREE, (earlier) => earlier[earlier.length - 1]!);
  const stitches = Array.from({ length: STITCHES }, () => [pick(tree), pick(tree)] as const)
    .filter(([from, to]) => from.id !== to.id)
    .map(([from, to]) => ({ from: from.id, to: to.id, by: viewer.uid }));

  // The viewer's own share: written messages, received messages, channels.
  const shuffled = shuffle([...threads]);
  const receivers: { message_id: string; uid: string; public: boolean; read: boolean; added_by: string }[] =
    [];
  const viewerWrites = shuffled.slice(0, VIEWER_WRITES_IN);
  viewerWrites.forEach((thread, i) => {
    const mine = i % 3 === 0 ? thread[0]! : pick(thread);
    mine.author_uid = viewer.uid;
    // Most of what the viewer writes goes to someone (that is what puts it into the inbox).
    if (random() < 0.8) {
      receivers.push({
        message_id: mine.id,
        uid: pick(others).uid,
        public: true,
        read: false,
        added_by: viewer.uid,
      });
    }
  });
  for (const thread of shuffled.slice(VIEWER_WRITES_IN, VIEWER_WRITES_IN + VIEWER_RECEIVES_IN)) {
    const received = pick(thread);
    receivers.push({
      message_id: received.id,
      uid: viewer.uid,
      public: random() < 0.7,
      read: random() < 0.5,
      added_by: received.author_uid,
    });
  }
  // Everyone else: on average one recipient per message, 30% of them BCC.
  for (const message of messages) {
    const count = Math.floor(random() * 3);
    for (let k = 0; k < count; k++) {
      const uid = pick(others).uid;
      if (uid === message.author_uid) continue;
      receivers.push({
        message_id: message.id,
        uid,
        public: random() < 0.7,
        read: random() < 0.5,
        added_by: message.author_uid,
      });
    }
  }
  const seen = new Set<string>();
  const uniqueReceivers = receivers.filter((r) => {
    const key = `${r.message_id}/${r.uid}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });

  const channels = Array.from({ length: CHANNELS }, (_, i) => ({
    id: hex8(i + 1, 0xcafe),
    created_by: pick(others).uid,
  }));
  const members: { channel_id: string; uid: string; is_admin: boolean }[] = [];
  channels.forEach((channel, i) => {
    const memberUids = new Set([channel.created_by]);
    while (memberUids.size < 20) memberUids.add(pick(others).uid);
    if (i < 2) memberUids.add(viewer.uid);
    for (const uid of memberUids)
      members.push({ channel_id: channel.id, uid, is_admin: uid === channel.created_by });
  });
  const inclusions = messages
    .filter(() => random() < INCLUDED_SHARE)
    .map((message) => ({
      channel_id: pick(channels).id,
      message_id: message.id,
      added_by: message.author_uid,
    }));

  return { users, messages, receivers: uniqueReceivers, channels, members, inclusions, stitches };
}

async function inBatches<T>(db: Database, label: string, rows: T[], text: string): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await db.runText(text, { rows: rows.slice(i, i + BATCH) });
  }
  console.log(`${label}: ${rows.length}`);
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
    await applySchema(db, createLogger('warn'));
    const data = generate();
    const began = Date.now();
    await inBatches(
      db,
      'users',
      data.users,
      `UNWIND $rows AS row
       CREATE (:User {uid: row.uid, user_tag: row.user_tag, tag_folded: row.tag_folded, scopes: ['messages.read'],
                      is_managed: false, is_bot: false, has_api_access: false, created_at: datetime()})`,
    );
    await inBatches(
      db,
      'messages',
      data.messages,
      `UNWIND $rows AS row
       MATCH (author:User {uid: row.author_uid})
       CREATE (author)-[:SENT]->(:Message {id: row.id, content: row.content, subject: null, public: row.public,
         created_at: datetime(row.created_at), author_uid: row.author_uid, parent_id: row.parent_id,
         root_id: row.root_id, tags: [], reply_order: null, default_outgoing: null, import_info_json: null})`,
    );
    await inBatches(
      db,
      'replies',
      data.messages.filter((m) => m.parent_id !== null),
      `UNWIND $rows AS row
       MATCH (parent:Message {id: row.parent_id}), (child:Message {id: row.id})
       CREATE (parent)-[:REPLY]->(child)`,
    );
    await inBatches(
      db,
      'receivers',
      data.receivers,
      `UNWIND $rows AS row
       MATCH (m:Message {id: row.message_id}), (u:User {uid: row.uid})
       CREATE (m)-[:RECEIVED_BY {public: row.public, added_by: row.added_by, added_at: m.created_at,
                                 read_at: CASE WHEN row.read THEN m.created_at + duration('PT1H') END}]->(u)`,
    );
    await inBatches(
      db,
      'channels',
      data.channels,
      `UNWIND $rows AS row
       CREATE (:Channel {id: row.id, display_name: 'bench ' + row.id, description: null,
                         created_at: datetime(), created_by: row.created_by})`,
    );
    await inBatches(
      db,
      'memberships',
      data.members,
      `UNWIND $rows AS row
       MATCH (c:Channel {id: row.channel_id}), (u:User {uid: row.uid})
       CREATE (c)-[:HAS_MEMBER {is_admin: row.is_admin, joined_at: datetime()}]->(u)`,
    );
    await inBatches(
      db,
      'inclusions',
      data.inclusions,
      `UNWIND $rows AS row
       MATCH (c:Channel {id: row.channel_id}), (m:Message {id: row.message_id})
       MERGE (c)-[i:INCLUDES]->(m)
       ON CREATE SET i.added_by = row.added_by, i.added_at = m.created_at`,
    );
    await inBatches(
      db,
      'stitches',
      data.stitches,
      `UNWIND $rows AS row
       MATCH (a:Message {id: row.from}), (b:Message {id: row.to})
       MERGE (a)-[s:STITCH {by: row.by}]->(b)
       ON CREATE SET s.at = b.created_at`,
    );
    console.log(`seeded in ${((Date.now() - began) / 1000).toFixed(1)} s; viewer uid ${data.users[0]!.uid}`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
