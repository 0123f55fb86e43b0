// The deterministic store behind the benchmark (bench/run-bench.ts) and the view profiles
// (bench/seed-views.ts, docs/views-query-plans.md): users, channels and a forest of branching
// threads, written straight through Cypher UNWIND batches (never through HTTP, so a million
// messages take minutes, not hours).
//
// One user, tag `bench-viewer`, is given about a thousand threads of their own: messages they wrote
// (most with a recipient), messages they receive (half of them read), and two channels; about 1% of
// all messages are public. The viewer also owns the "own threads" (e.g. a 10k-message thread with a
// deep spine for the traversal workloads). Everything else is spread over random users. Messages
// carry Zipf-distributed words (words.ts) so that search has realistic work.
//
// The order of the generator's random draws is the one of the first seeder, so seed-views.ts with
// its old options still builds the store docs/views-query-plans.md was measured on (except for the
// message text).
import type { Database } from '../../src/platform/neo4j/database.js';
import { Prng, hex8 } from './prng.js';
import { contentOf } from './words.js';

export const VIEWER_TAG = 'bench-viewer';
export const LEAD_TAG = 'bench-lead';

export interface OwnThreadSpec {
  /** Messages in the thread, all written by the viewer. */
  size: number;
  /**
   * Messages on its spine, root included: each new message extends the spine (replies to its tip)
   * with probability (spine left) / (messages left), else replies to a random earlier message of the
   * thread. 1 gives a shallow random tree, `size` a plain reply chain.
   */
  spine: number;
  /** Random stitches between messages of the thread. */
  stitches: number;
}

export interface DatasetOptions {
  messages: number;
  users: number;
  channels: number;
  /** Threads among the messages outside the own threads (default messages / 5). */
  threads?: number;
  seed: number;
  /** Threads the viewer writes in (a third of them as the root's author). */
  viewerWritesIn: number;
  /** Threads holding a message the viewer is a recipient of. */
  viewerReceivesIn: number;
  /** Members of each channel (the viewer belongs to the first two channels as well). */
  channelMembers: number;
  ownThreads: OwnThreadSpec[];
  /** bcrypt hash stored as the password of the viewer and the lead, so that the benchmark can log in. */
  passwordHash?: string | null;
  /**
   * A fan-out channel: a lead user (`bench-lead`, channel admin, read-only until granted more) and
   * this many managed users of the lead as members (`bench-member-<n>`), whose sessions the
   * benchmark gets through POST /v1/managed/auth/delegate.
   */
  fanoutMembers?: number;
}

export interface FanOut {
  lead: SeedUser;
  members: SeedUser[];
  channel_id: string;
}

export interface SeedUser {
  uid: string;
  user_tag: string;
  tag_folded: string;
}

export interface SeedMessage {
  /** Position in time order; the message's text is contentOf(seed, index). */
  index: number;
  id: string;
  public: boolean;
  created_at: string;
  author_uid: string;
  parent_id: string | null;
  root_id: string;
}

export interface OwnThread {
  root_id: string;
  /** Spine ids, root first: spine[d] is at depth d. */
  spine: string[];
  ids: string[];
}

export interface Dataset {
  options: DatasetOptions;
  users: SeedUser[];
  viewer: SeedUser;
  messages: SeedMessage[];
  receivers: { message_id: string; uid: string; public: boolean; read: boolean; added_by: string }[];
  channels: { id: string; created_by: string }[];
  members: { channel_id: string; uid: string; is_admin: boolean }[];
  inclusions: { channel_id: string; message_id: string; added_by: string }[];
  stitches: { from: string; to: string; by: string }[];
  ownThreads: OwnThread[];
  fanout: FanOut | null;
}

const PUBLIC_SHARE = 0.01;
const INCLUDED_SHARE = 0.03;
const VIEWER_CHANNELS = 2;

export function generateDataset(options: DatasetOptions): Dataset {
  const random = new Prng(options.seed);
  const ownTotal = options.ownThreads.reduce((sum, t) => sum + t.size, 0);
  const total = options.messages;
  if (ownTotal >= total) throw new Error(`--messages (${total}) must exceed the own threads (${ownTotal})`);
  const threadCount = options.threads ?? Math.round(total / 5);

  const users: SeedUser[] = Array.from({ length: options.users }, (_, i) => {
    const tag = i === 0 ? VIEWER_TAG : `bench-user-${i}`;
    return { uid: hex8(i + 1, 0x5eed), user_tag: tag, tag_folded: tag };
  });
  const viewer = users[0]!;
  const others = users.slice(1);
  if (others.length < 3) throw new Error('--users must be at least 4');

  // Messages in time order: a new thread with probability threads / messages, else a reply to a
  // random message of a random earlier thread, so threads branch and stay active for a while.
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  const year = 365 * 24 * 3600 * 1000;
  const step = Math.floor(year / total);
  const threads: SeedMessage[][] = [];
  const messages: SeedMessage[] = [];
  const mainCount = total - ownTotal;
  for (let i = 0; i < mainCount; i++) {
    const id = hex8(i + 1, 0xc0ffee);
    const created_at = new Date(start + i * step).toISOString();
    const base = { index: i, id, public: random.next() < PUBLIC_SHARE, created_at };
    let message: SeedMessage;
    if (threads.length === 0 || random.next() < threadCount / total) {
      message = { ...base, author_uid: random.pick(others).uid, parent_id: null, root_id: id };
      threads.push([message]);
    } else {
      const thread = random.pick(threads);
      const parent = random.pick(thread);
      message = {
        ...base,
        author_uid: random.pick(others).uid,
        parent_id: parent.id,
        root_id: parent.root_id,
      };
      thread.push(message);
    }
    messages.push(message);
  }

  // The viewer's own threads, spread over the same year.
  const ownThreads: OwnThread[] = [];
  const ownMessages: SeedMessage[][] = [];
  let first = mainCount;
  for (const spec of options.ownThreads) {
    const own: SeedMessage[] = [];
    const spine: SeedMessage[] = [];
    for (let k = 0; k < spec.size; k++) {
      const id = hex8(first + k + 1, 0xc0ffee);
      const created_at = new Date(start + Math.floor((k * year) / spec.size) + 1).toISOString();
      let parent: SeedMessage | null = null;
      let onSpine = k === 0;
      if (k > 0) {
        // No draw when the outcome is certain, which keeps the first seeder's sequence.
        const chance = (spec.spine - spine.length) / (spec.size - k);
        onSpine = chance >= 1 || (chance > 0 && random.next() < chance);
        parent = onSpine ? spine[spine.length - 1]! : random.pick(own);
      }
      const message: SeedMessage = {
        index: first + k,
        id,
        public: false,
        created_at,
        author_uid: viewer.uid,
        parent_id: parent?.id ?? null,
        root_id: parent?.root_id ?? id,
      };
      own.push(message);
      if (onSpine) spine.push(message);
    }
    messages.push(...own);
    ownMessages.push(own);
    ownThreads.push({ root_id: own[0]!.id, spine: spine.map((m) => m.id), ids: own.map((m) => m.id) });
    first += spec.size;
  }
  const stitches = options.ownThreads.flatMap((spec, t) => {
    const own = ownMessages[t]!;
    return Array.from({ length: spec.stitches }, () => [random.pick(own), random.pick(own)] as const)
      .filter(([from, to]) => from.id !== to.id)
      .map(([from, to]) => ({ from: from.id, to: to.id, by: viewer.uid }));
  });

  // The viewer's share of everyone else's threads: written messages and received ones.
  const shuffled = random.shuffle([...threads]);
  const receivers: Dataset['receivers'] = [];
  shuffled.slice(0, options.viewerWritesIn).forEach((thread, i) => {
    const mine = i % 3 === 0 ? thread[0]! : random.pick(thread);
    mine.author_uid = viewer.uid;
    // Most of what the viewer writes goes to someone (that is what puts it into the inbox).
    if (random.next() < 0.8) {
      receivers.push({
        message_id: mine.id,
        uid: random.pick(others).uid,
        public: true,
        read: false,
        added_by: viewer.uid,
      });
    }
  });
  for (const thread of shuffled.slice(
    options.viewerWritesIn,
    options.viewerWritesIn + options.viewerReceivesIn,
  )) {
    const received = random.pick(thread);
    receivers.push({
      message_id: received.id,
      uid: viewer.uid,
      public: random.next() < 0.7,
      read: random.next() < 0.5,
      added_by: received.author_uid,
    });
  }
  // Everyone else: on average one recipient per message, 30% of them BCC.
  for (const message of messages) {
    const count = Math.floor(random.next() * 3);
    for (let k = 0; k < count; k++) {
      const uid = random.pick(others).uid;
      if (uid === message.author_uid) continue;
      receivers.push({
        message_id: message.id,
        uid,
        public: random.next() < 0.7,
        read: random.next() < 0.5,
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

  const channels = Array.from({ length: options.channels }, (_, i) => ({
    id: hex8(i + 1, 0xcafe),
    created_by: random.pick(others).uid,
  }));
  const members: Dataset['members'] = [];
  const perChannel = Math.min(options.channelMembers, others.length);
  channels.forEach((channel, i) => {
    const memberUids = new Set([channel.created_by]);
    while (memberUids.size < perChannel) memberUids.add(random.pick(others).uid);
    if (i < VIEWER_CHANNELS) memberUids.add(viewer.uid);
    for (const uid of memberUids)
      members.push({ channel_id: channel.id, uid, is_admin: uid === channel.created_by });
  });
  const inclusions =
    channels.length === 0
      ? []
      : messages
          .filter(() => random.next() < INCLUDED_SHARE)
          .map((message) => ({
            channel_id: random.pick(channels).id,
            message_id: message.id,
            added_by: message.author_uid,
          }));

  // The fan-out channel draws nothing from the generator: the store above is the same with or without it.
  const fanoutSize = options.fanoutMembers ?? 0;
  const fanout: FanOut | null =
    fanoutSize > 0
      ? {
          lead: { uid: hex8(1, 0x1ead), user_tag: LEAD_TAG, tag_folded: LEAD_TAG },
          members: Array.from({ length: fanoutSize }, (_, i) => {
            const tag = `bench-member-${i}`;
            return { uid: hex8(i + 1, 0xfa17), user_tag: tag, tag_folded: tag };
          }),
          channel_id: hex8(0, 0xfa17c),
        }
      : null;
  const uids = [...users, ...(fanout ? [fanout.lead, ...fanout.members] : [])].map((u) => u.uid);
  if (new Set(uids).size !== uids.length) throw new Error('two seeded users got the same uid; change --seed');

  return {
    options,
    users,
    viewer,
    messages,
    receivers: uniqueReceivers,
    channels,
    members,
    inclusions,
    stitches,
    ownThreads,
    fanout,
  };
}

export interface WriteProgress {
  label: string;
  done: number;
  total: number;
  elapsedMs: number;
}

const BATCH = 10_000;

async function inBatches<T>(
  db: Database,
  label: string,
  rows: T[],
  text: string,
  onProgress: (progress: WriteProgress) => void,
  prepare: (row: T) => unknown = (row) => row,
  params: Record<string, unknown> = {},
): Promise<void> {
  const began = Date.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    await db.runText(text, { ...params, rows: rows.slice(i, i + BATCH).map(prepare) });
    onProgress({
      label,
      done: Math.min(i + BATCH, rows.length),
      total: rows.length,
      elapsedMs: Date.now() - began,
    });
  }
  if (rows.length === 0) onProgress({ label, done: 0, total: 0, elapsedMs: Date.now() - began });
}

/**
 * The participation records (schema 020) the write path would have kept for these messages: per
 * (author, thread), the author's newest message there and whether any of theirs has a recipient
 * other than them.
 */
function participationRecords(data: Dataset) {
  const authorOf = new Map(data.messages.map((m) => [m.id, m]));
  const addressed = new Set<string>();
  for (const r of data.receivers) {
    const m = authorOf.get(r.message_id);
    if (m && r.uid !== m.author_uid) addressed.add(`${m.author_uid} ${m.root_id}`);
  }
  const records = new Map<
    string,
    { uid: string; root_id: string; last_wrote_at: string; addressed: boolean }
  >();
  for (const m of data.messages) {
    const key = `${m.author_uid} ${m.root_id}`;
    const record = records.get(key);
    // ISO instants of one format compare as strings.
    if (record && record.last_wrote_at >= m.created_at) continue;
    records.set(key, {
      uid: m.author_uid,
      root_id: m.root_id,
      last_wrote_at: m.created_at,
      addressed: addressed.has(key),
    });
  }
  return [...records.values()];
}

/**
 * Writes the store into an empty database (its schema already applied), in UNWIND batches of 10k
 * rows, one auto-committed transaction per batch, reporting after each batch.
 */
export async function writeDataset(
  db: Database,
  data: Dataset,
  onProgress: (progress: WriteProgress) => void = () => undefined,
): Promise<void> {
  const seed = data.options.seed;
  const passwordHash = data.options.passwordHash ?? null;
  await inBatches(
    db,
    'users',
    data.users,
    `UNWIND $rows AS row
     CREATE (:User {uid: row.uid, user_tag: row.user_tag, tag_folded: row.tag_folded, scopes: ['messages.read'],
                    is_managed: false, is_bot: false, has_api_access: false, created_at: datetime(),
                    password_hash: row.password_hash})`,
    onProgress,
    (user) => ({ ...user, password_hash: user.uid === data.viewer.uid ? passwordHash : null }),
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
    onProgress,
    (m) => ({
      id: m.id,
      content: contentOf(seed, m.index),
      public: m.public,
      created_at: m.created_at,
      author_uid: m.author_uid,
      parent_id: m.parent_id,
      root_id: m.root_id,
    }),
  );
  await inBatches(
    db,
    'replies',
    data.messages.filter((m) => m.parent_id !== null),
    `UNWIND $rows AS row
     MATCH (parent:Message {id: row.parent_id}), (child:Message {id: row.id})
     CREATE (parent)-[:REPLY]->(child)`,
    onProgress,
    (m) => ({ id: m.id, parent_id: m.parent_id }),
  );
  await inBatches(
    db,
    'receivers',
    data.receivers,
    `UNWIND $rows AS row
     MATCH (m:Message {id: row.message_id}), (u:User {uid: row.uid})
     CREATE (m)-[:RECEIVED_BY {public: row.public, added_by: row.added_by, added_at: m.created_at,
                               read_at: CASE WHEN row.read THEN m.created_at + duration('PT1H') END,
                               receiver_uid: u.uid, created_at: m.created_at}]->(u)
     FOREACH (_ IN CASE WHEN row.read THEN [] ELSE [1] END | CREATE (u)-[:UNREAD]->(m))`,
    onProgress,
  );
  await inBatches(
    db,
    'participation',
    participationRecords(data),
    `UNWIND $rows AS row
     CREATE (:Participation {uid: row.uid, root_id: row.root_id, last_wrote_at: datetime(row.last_wrote_at),
                             addressed: row.addressed})`,
    onProgress,
  );
  await inBatches(
    db,
    'channels',
    data.channels,
    `UNWIND $rows AS row
     CREATE (:Channel {id: row.id, display_name: 'bench ' + row.id, description: null,
                       created_at: datetime(), created_by: row.created_by})`,
    onProgress,
  );
  await inBatches(
    db,
    'memberships',
    data.members,
    `UNWIND $rows AS row
     MATCH (c:Channel {id: row.channel_id}), (u:User {uid: row.uid})
     CREATE (c)-[:HAS_MEMBER {is_admin: row.is_admin, joined_at: datetime()}]->(u)`,
    onProgress,
  );
  await inBatches(
    db,
    'inclusions',
    data.inclusions,
    `UNWIND $rows AS row
     MATCH (c:Channel {id: row.channel_id}), (m:Message {id: row.message_id})
     MERGE (c)-[i:INCLUDES]->(m)
     ON CREATE SET i.added_by = row.added_by, i.added_at = m.created_at`,
    onProgress,
  );
  if (data.fanout) {
    const { lead, members, channel_id } = data.fanout;
    await db.runText(
      `CREATE (lead:User {uid: $uid, user_tag: $tag, tag_folded: $tag, scopes: ['messages.read'],
                          is_managed: false, is_bot: false, has_api_access: false, created_at: datetime(),
                          password_hash: $hash})
       CREATE (c:Channel {id: $channel_id, display_name: 'bench fan-out', description: null,
                          created_at: datetime(), created_by: $uid})
       CREATE (c)-[:HAS_MEMBER {is_admin: true, joined_at: datetime()}]->(lead)`,
      { uid: lead.uid, tag: lead.user_tag, hash: passwordHash, channel_id },
    );
    await inBatches(
      db,
      'fan-out members',
      members,
      `MATCH (lead:User {uid: $lead_uid}), (c:Channel {id: $channel_id})
       UNWIND $rows AS row
       CREATE (m:User {uid: row.uid, user_tag: row.user_tag, tag_folded: row.tag_folded,
                       scopes: ['messages.read', 'messages.write', 'realtime.connect'],
                       is_managed: true, is_bot: false, has_api_access: false, created_at: datetime()})
       CREATE (lead)-[:MANAGES {since: datetime()}]->(m)
       CREATE (c)-[:HAS_MEMBER {is_admin: false, joined_at: datetime()}]->(m)`,
      onProgress,
      (row) => row,
      { lead_uid: lead.uid, channel_id },
    );
  }
  await inBatches(
    db,
    'stitches',
    data.stitches,
    `UNWIND $rows AS row
     MATCH (a:Message {id: row.from}), (b:Message {id: row.to})
     MERGE (a)-[s:STITCH {by: row.by}]->(b)
     ON CREATE SET s.at = b.created_at`,
    onProgress,
  );
}
