// npm run bench -- [--profile small|large] [--smoke] [--only post,read,...] (see lib/profiles.ts)
//
// Measures Skein against the limits of its own stack, side by side in one run (issue 6):
//  1. starts an embedded Neo4j in a temporary directory (or uses NEO4J_URI), seeds a deterministic
//     store through UNWIND batches (lib/dataset.ts);
//  2. starts the service as a separate process (`node --import tsx src/start.ts`) and a bare
//     node:http / WebSocket server as another (lib/bare-server.ts);
//  3. gets sessions through the real API: the seeded viewer and lead log in with their password,
//     after the bootstrap admin has granted the lead write rights; the lead creates managed writers
//     and webhook bots and delegates sessions to them and to the seeded fan-out members;
//  4. for each workload drives the service with autocannon (this process is the load generator),
//     then measures the limit: the same Cypher straight through neo4j-driver (lib/db-limits.ts),
//     and the bare server with the same body size and connections;
//  5. prints one table and writes it to bench/results/ (lib/report.ts).
// The scale-out workload (issue 17) starts a redis-server and two more service processes on the same
// Neo4j, and compares the same load on one of them with that load spread over both, with the CPU time
// each process spent per request.
// The stream and typing workloads (issue 51, decision 031) time streamed chunks from the append to the
// readers' live frames, and weigh typing signals against posting throughput and Neo4j writes.
// The cold workload (issue 52, decision 035), always last, restarts the embedded Neo4j and the service
// and compares the first minute after the start with the fifth.
// Workloads: post, read, views, traverse, context, search, fanout, sockets, webhooks, scaleout,
// amplification, stream, typing, completions, cold.
// docs/benchmarks.md explains each workload and how to read the numbers.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { DEFAULT_CONTEXT_CHARS, DEFAULT_CONTEXT_ENTRIES } from '../src/components/context/context.schemas.js';
import { hashPassword } from '../src/components/identity/passwords.js';
import { createLogger } from '../src/platform/logger.js';
import { Database, type Neo4jTarget } from '../src/platform/neo4j/database.js';
import { startEmbeddedNeo4j, type EmbeddedOptions } from '../src/platform/neo4j/embedded-neo4j.js';
import { applySchema } from '../src/platform/neo4j/schema-setup.js';
import { Api, mapPool, sessionIdOf } from './lib/api.js';
import { LEAD_TAG, VIEWER_TAG, generateDataset, writeDataset, type Dataset } from './lib/dataset.js';
import { DbLimits, type Actor, type Operation } from './lib/db-limits.js';
import { measureHttp, mergeHttp, type HttpMeasured, type HttpRequestSpec } from './lib/http-load.js';
import { parseProfile, type Profile, type Workload } from './lib/profiles.js';
import { Prng } from './lib/prng.js';
import {
  childPids,
  cpuMs,
  freePort,
  killChildren,
  rssMiB,
  startBareServer,
  startRedis,
  startService,
  type Child,
} from './lib/processes.js';
import { FanOutListeners } from './lib/fan-out-listeners.js';
import { measureCompletions, p50 as completionP50, p99 as completionP99 } from './lib/completions.js';
import {
  measureFanOut,
  monotonicMs,
  openMany,
  sleep,
  terminateAll,
  type FanOutResult,
} from './lib/realtime.js';
import { writeReport, textTable, type Row, type Target } from './lib/report.js';
import { atRate, merge, percentile, runPool, summarize, type Measured, type Paced } from './lib/stats.js';
import { startReceiver } from './lib/webhooks.js';
import { contentOf, wordOfRank } from './lib/words.js';
import type { WebSocket } from 'ws';

// This process holds the seeded dataset (900 MB on the large profile). When its allocation slows, as
// during the fan-out's rounds, V8's memory reducer marks that heap again to hand pages back: 0.7 s of
// CPU, in the middle of a round, on the two cores the service is measured on (2026-11-28). A load
// generator has no use for pages handed back.
v8.setFlagsFromString('--no-memory-reducer');

const ADMIN_TAG = 'bench-admin';
const ADMIN_PASSWORD = 'bench-Admin-Password-2026';
/** The password of the seeded viewer and lead. */
const SEEDED_PASSWORD = 'bench-Seeded-Password-2026';
const BCRYPT_COST = 12;

interface Session extends Actor {
  token: string;
}

interface Neo4jRestart {
  pid: number | null;
  stopMs: number;
  startMs: number;
}

interface Context {
  profile: Profile;
  data: Dataset;
  api: Api;
  service: Child;
  /** The environment of a service process on the run's Neo4j (the scale-out workload starts two more). */
  serviceEnv: (port: number, dataDir: string) => Record<string, string>;
  /** The embedded Neo4j's JVM (a child of this process), or null for a NEO4J_URI server. */
  neo4jPid: number | null;
  /**
   * Stops the embedded Neo4j and starts it again on the same store and port, checks that the run's
   * own driver (the limits') reaches it, and answers the new JVM's pid and the ms the stop and the
   * start took; null for a NEO4J_URI server.
   */
  restartNeo4j: (() => Promise<Neo4jRestart>) | null;
  /** The run's temporary directory. */
  tmp: string;
  bare: Child;
  limits: DbLimits;
  run: string;
  lead: Session;
  writers: Session[];
  viewer: Session;
  /** Sessions of the seeded fan-out members, delegated on first use (see membersOf). */
  members: Session[];
  rows: Row[];
  notes: string[];
  /** What went wrong (a workload that threw, error answers): the run exits with 1 when any. */
  failures: string[];
}

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

// ---------------------------------------------------------------------------------------------
// Measurement helpers shared by the HTTP workloads

/** One request through fetch: checks the status and answers the body size (for the bare server). */
async function probe(
  ctx: Context,
  method: 'GET' | 'POST',
  spec: HttpRequestSpec,
  baseUrl = ctx.service.url,
): Promise<number> {
  const res = await fetch(`${baseUrl}${spec.path}`, {
    method,
    headers: { ...spec.headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(spec.body !== undefined ? { body: spec.body } : {}),
  });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`${method} ${spec.path} answered ${res.status}: ${text.slice(0, 300)}`);
  if (method === 'POST' && text.includes('"ok":false'))
    throw new Error(`a posted item failed: ${text.slice(0, 300)}`);
  return Buffer.byteLength(text);
}

/** The bare server answers in microseconds: a second gives thousands of samples. */
const bareSeconds = (profile: Profile) => Math.max(0.5, Math.min(1, profile.duration / 2));
/** Unmeasured requests before each measurement (fewer in the smoke run, which only checks that all runs). */
const warmups = (profile: Profile, normal: number) =>
  profile.name === 'smoke' ? Math.ceil(normal / 3) : normal;

function ratioTarget(share: number, skein: number, limit: number): Target {
  return { text: `≥ ${share * 100}% of limit`, pass: skein >= share * limit };
}

function underTarget(ms: number, value: number, largeOnly: boolean, profile: Profile): Target {
  const text = `p99 < ${ms} ms${largeOnly ? ' (large)' : ''}`;
  return { text, pass: largeOnly && profile.name !== 'large' ? null : value < ms };
}

const bareCache = new Map<string, Promise<HttpMeasured>>();

/**
 * The bare server under the same load. The smoke run (which only checks that everything runs)
 * measures it once per method and connection count and reuses that.
 */
function bareHttp(ctx: Context, options: Parameters<typeof measureHttp>[0]): Promise<HttpMeasured> {
  if (ctx.profile.name !== 'smoke') return measureHttp(options);
  const key = `${options.method} ${options.connections}`;
  let measured = bareCache.get(key);
  if (!measured) {
    measured = measureHttp(options);
    bareCache.set(key, measured);
  }
  return measured;
}

/** Request numbers of the second part of a measurement start here (the first part's never get that far). */
const PART_STRIDE = 1_000_000;

/**
 * Skein and its database limit, each measured for `profile.duration` seconds in two halves that
 * alternate (Skein, limit, Skein, limit): on a shared machine a passing disturbance then weighs on
 * both sides instead of one.
 */
async function alternate(
  profile: Profile,
  skeinPart: (part: number, seconds: number, first: boolean) => Promise<HttpMeasured>,
  limitPart: (part: number, seconds: number, first: boolean) => Promise<Measured>,
): Promise<{ skein: HttpMeasured; limit: Measured }> {
  // The smoke run's measurements are too short to split (an autocannon run lasts at least a second).
  const parts = profile.name === 'smoke' ? 1 : 2;
  const seconds = profile.duration / parts;
  const skein: HttpMeasured[] = [];
  const limit: Measured[] = [];
  for (let part = 0; part < parts; part++) {
    skein.push(await skeinPart(part, seconds, part === 0));
    limit.push(await limitPart(part, seconds, part === 0));
  }
  return { skein: mergeHttp(skein), limit: merge(limit) };
}

/** A throughput workload: autocannon on Skein, the pool on the database, autocannon on the bare server. */
async function throughput(
  ctx: Context,
  spec: {
    workload: string;
    metric: 'msgs/s' | 'req/s';
    method: 'GET' | 'POST';
    connections: number;
    units: number;
    request: (i: number) => HttpRequestSpec;
    limit: Operation;
    share: number;
    withP99?: boolean;
    /** One unmeasured round of Skein and the limit first. */
    warmUp?: boolean;
  },
): Promise<void> {
  const { profile } = ctx;
  const bytes = await probe(ctx, spec.method, spec.request(1_000_000));
  const skeinPart = (part: number, seconds: number, first: boolean) =>
    measureHttp({
      baseUrl: ctx.service.url,
      method: spec.method,
      connections: spec.connections,
      seconds,
      request: spec.request,
      unitsPerRequest: spec.units,
      warmupRequests: first ? warmups(profile, spec.connections * (spec.method === 'POST' ? 1 : 3)) : 0,
      startAt: part * PART_STRIDE,
    });
  const limitPart = (part: number, seconds: number, first: boolean) =>
    runPool(spec.limit, {
      concurrency: spec.connections,
      seconds,
      warmupOps: first ? warmups(profile, 2) : 0,
      startAt: part * PART_STRIDE,
    });
  // A freshly started Neo4j (and service) runs the write path several times slower until the JIT has
  // compiled it: the first workload gets one unmeasured round of both sides.
  if (spec.warmUp && profile.name !== 'smoke') {
    await alternate(profile, (part, seconds) => skeinPart(part + 2, seconds, false), limitPart);
  }
  const { skein, limit } = await alternate(profile, skeinPart, limitPart);
  const http = await bareHttp(ctx, {
    baseUrl: ctx.bare.url,
    method: spec.method,
    connections: spec.connections,
    seconds: bareSeconds(profile),
    request: (i) => {
      const { body } = spec.request(i);
      return { path: `/bytes/${bytes}`, ...(body !== undefined ? { body } : {}) };
    },
    unitsPerRequest: spec.units,
  });
  const failures = [
    skein.non2xx ? `${skein.non2xx} non-2xx answers` : '',
    skein.errors ? `${skein.errors} connection errors` : '',
    limit.errors ? `${limit.errors} limit errors (${limit.firstError ?? ''})` : '',
  ].filter(Boolean);
  for (const failure of failures) ctx.failures.push(`${spec.workload}: ${failure}`);
  ctx.rows.push({
    workload: spec.workload,
    metric: spec.metric,
    skein: skein.unitsPerSec,
    limit: limit.unitsPerSec,
    limitOf: 'neo4j-driver',
    http: http.unitsPerSec,
    target: ratioTarget(spec.share, skein.unitsPerSec, limit.unitsPerSec),
    note:
      `${spec.connections} connections; answer ${bytes} bytes; Skein ${skein.count} requests, p50 ` +
      `${skein.p50.toFixed(1)} ms; limit ${limit.count} operations, p50 ${limit.p50.toFixed(1)} ms` +
      (failures.length ? `; ${failures.join(', ')}` : ''),
  });
  if (spec.withP99) {
    ctx.rows.push({
      workload: spec.workload,
      metric: 'p99 ms',
      skein: skein.p99,
      limit: limit.p99,
      limitOf: 'neo4j-driver',
      http: http.p99,
      target: null,
    });
  }
}

/** A latency workload: one connection, one request at a time, on Skein, the database and the bare server. */
async function latency(
  ctx: Context,
  spec: {
    workload: string;
    /** GET unless said (GraphQL queries are POSTed). */
    method?: 'GET' | 'POST';
    request: (i: number) => HttpRequestSpec;
    limit: Operation;
    target: (p99: number) => Target | null;
    /** Another service process of the run (one started with other settings); the run's own by default. */
    baseUrl?: string;
  },
): Promise<void> {
  const { profile } = ctx;
  const method = spec.method ?? 'GET';
  const baseUrl = spec.baseUrl ?? ctx.service.url;
  const bytes = await probe(ctx, method, spec.request(0), baseUrl);
  const { skein, limit } = await alternate(
    profile,
    (part, seconds, first) =>
      measureHttp({
        baseUrl,
        method,
        connections: 1,
        seconds,
        request: spec.request,
        warmupRequests: first ? warmups(profile, 5) : 0,
        startAt: part * PART_STRIDE,
      }),
    (part, seconds, first) =>
      runPool(spec.limit, {
        concurrency: 1,
        seconds,
        warmupOps: first ? warmups(profile, 5) : 0,
        startAt: part * PART_STRIDE,
      }),
  );
  const http = await bareHttp(ctx, {
    baseUrl: ctx.bare.url,
    method: 'GET',
    connections: 1,
    seconds: bareSeconds(profile),
    request: () => ({ path: `/bytes/${bytes}` }),
  });
  const failures = [
    skein.non2xx ? `${skein.non2xx} non-2xx answers` : '',
    limit.errors ? `${limit.errors} limit errors (${limit.firstError ?? ''})` : '',
  ].filter(Boolean);
  for (const failure of failures) ctx.failures.push(`${spec.workload}: ${failure}`);
  const note =
    `answer ${bytes} bytes; Skein ${skein.count} requests (${skein.opsPerSec.toFixed(0)}/s), limit ` +
    `${limit.count} operations` +
    (failures.length ? `; ${failures.join(', ')}` : '');
  ctx.rows.push({
    workload: spec.workload,
    metric: 'p50 ms',
    skein: skein.p50,
    limit: limit.p50,
    limitOf: 'neo4j-driver',
    http: http.p50,
    target: null,
  });
  ctx.rows.push({
    workload: spec.workload,
    metric: 'p99 ms',
    skein: skein.p99,
    limit: limit.p99,
    limitOf: 'neo4j-driver',
    http: http.p99,
    target: spec.target(skein.p99),
    note,
  });
}

/** Two distinct seeded users (not the viewer) for request i: the recipients of a post. */
function recipientsFor(ctx: Context, i: number): string[] {
  const random = new Prng(ctx.profile.seed * 7919 + i);
  const others = ctx.data.users.length - 1;
  const a = 1 + random.below(others);
  let b = 1 + random.below(others - 1);
  if (b >= a) b++;
  return [ctx.data.users[a]!.uid, ctx.data.users[b]!.uid];
}

const bearer = (session: Session) => ({ authorization: `Bearer ${session.token}` });

// ---------------------------------------------------------------------------------------------
// Workloads

async function postWorkloads(ctx: Context): Promise<void> {
  const seed = ctx.profile.seed;
  const writerOf = (i: number) => ctx.writers[i % ctx.writers.length]!;
  await throughput(ctx, {
    workload: 'post: single message, 2 recipients',
    metric: 'msgs/s',
    method: 'POST',
    connections: ctx.profile.connections,
    units: 1,
    share: 0.6,
    warmUp: true,
    request: (i) => ({
      path: '/v1/messages',
      headers: bearer(writerOf(i)),
      body: JSON.stringify({
        content: contentOf(seed + 101, i),
        recipients: recipientsFor(ctx, i).map((uid) => `uid:${uid}`),
      }),
    }),
    limit: ctx.limits.post((_worker, i) => ({
      author: writerOf(i),
      contents: [contentOf(seed + 102, i)],
      recipientUids: recipientsFor(ctx, i),
      channelIds: [],
    })),
  });
  const batch = (salt: number, i: number) =>
    Array.from({ length: 100 }, (_, k) => contentOf(seed + salt, i * 100 + k));
  await throughput(ctx, {
    workload: 'post: 100-message chained posts',
    metric: 'msgs/s',
    method: 'POST',
    connections: ctx.profile.batchConnections,
    units: 100,
    share: 0.6,
    request: (i) => ({
      path: '/v1/messages',
      headers: bearer(writerOf(i)),
      body: JSON.stringify({ messages: batch(103, i).map((content) => ({ content })) }),
    }),
    limit: ctx.limits.post((_worker, i) => ({
      author: writerOf(i),
      contents: batch(104, i),
      recipientUids: [],
      channelIds: [],
    })),
  });
}

/** Messages the viewer can see outside the own threads: written or received by them. */
function viewerVisibleIds(ctx: Context, max: number): string[] {
  const own = new Set(ctx.data.ownThreads.flatMap((t) => t.ids));
  const received = new Set(
    ctx.data.receivers.filter((r) => r.uid === ctx.data.viewer.uid).map((r) => r.message_id),
  );
  const ids = ctx.data.messages
    .filter((m) => !own.has(m.id) && (m.author_uid === ctx.data.viewer.uid || received.has(m.id)))
    .map((m) => m.id);
  return new Prng(ctx.profile.seed + 5).shuffle(ids).slice(0, max);
}

async function readWorkload(ctx: Context): Promise<void> {
  const ids = viewerVisibleIds(ctx, 1000);
  await throughput(ctx, {
    workload: 'read: GET /v1/messages/{id}',
    metric: 'req/s',
    method: 'GET',
    connections: ctx.profile.connections,
    units: 1,
    share: 0.7,
    withP99: true,
    request: (i) => ({ path: `/v1/messages/${ids[i % ids.length]!}`, headers: bearer(ctx.viewer) }),
    limit: ctx.limits.readById(ctx.viewer, ids),
  });
}

async function viewWorkloads(ctx: Context): Promise<void> {
  const views = [
    { name: 'timeline', limit: 15 },
    { name: 'inbox', limit: 15 },
    { name: 'history', limit: 6 },
  ] as const;
  for (const view of views) {
    await latency(ctx, {
      workload: `view: ${view.name} (limit ${view.limit})`,
      request: () => ({ path: `/v1/messages/${view.name}`, headers: bearer(ctx.viewer) }),
      limit: ctx.limits.view(ctx.viewer, view.name, view.limit),
      target: (p99) => underTarget(50, p99, true, ctx.profile),
    });
  }
  // Unread counts (issue 15): their cost follows what is unread, not the viewer's history.
  await latency(ctx, {
    workload: 'view: unread counts (limit 15)',
    request: () => ({ path: '/v1/messages/unread', headers: bearer(ctx.viewer) }),
    limit: ctx.limits.unread(ctx.viewer, 15),
    target: (p99) => underTarget(50, p99, true, ctx.profile),
  });
  await threadViewWorkloads(ctx);
}

/** The user the viewer has received the most messages from: the other side of its busiest conversation. */
function busiestCorrespondent(ctx: Context): string {
  const authorOf = new Map(ctx.data.messages.map((m) => [m.id, m.author_uid]));
  const counts = new Map<string, number>();
  for (const r of ctx.data.receivers) {
    if (r.uid !== ctx.data.viewer.uid) continue;
    const author = authorOf.get(r.message_id);
    if (author && author !== ctx.data.viewer.uid) counts.set(author, (counts.get(author) ?? 0) + 1);
  }
  const [best] = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (!best) throw new Error('the viewer received no message: no conversation to read');
  return best[0];
}

/** The flat thread view and the conversation view (issue 16), and the thread read through GraphQL. */
async function threadViewWorkloads(ctx: Context): Promise<void> {
  const thread = ctx.data.ownThreads[0]!;
  const origin = thread.spine[Math.floor(thread.spine.length / 2)]!;
  const other = busiestCorrespondent(ctx);
  await latency(ctx, {
    workload: `view: thread of a ${thread.ids.length}-message thread (limit 15)`,
    request: () => ({ path: `/v1/messages/${origin}/thread`, headers: bearer(ctx.viewer) }),
    limit: ctx.limits.threadPage(ctx.viewer, origin, 15, true),
    target: (p99) => underTarget(50, p99, true, ctx.profile),
  });
  await latency(ctx, {
    workload: 'view: conversation with the busiest correspondent (limit 15)',
    request: () => ({ path: `/v1/messages/conversation/${other}`, headers: bearer(ctx.viewer) }),
    limit: ctx.limits.conversation(ctx.viewer, other, 15),
    target: (p99) => underTarget(50, p99, true, ctx.profile),
  });
  // A chat client's read: a page of the thread with each author, and no link field.
  const query =
    'query($id: String!) { threadMessages(message_id: $id, limit: 50) { has_more messages ' +
    '{ id content timestamp parent_id author { uid user_tag display_name } } } }';
  await latency(ctx, {
    workload: 'graphql: thread page of 50 with authors, selected fields',
    method: 'POST',
    request: () => ({
      path: '/graphql',
      headers: bearer(ctx.viewer),
      body: JSON.stringify({ query, variables: { id: origin } }),
    }),
    limit: ctx.limits.threadPage(ctx.viewer, origin, 50, false),
    target: (p99) => underTarget(50, p99, true, ctx.profile),
  });
}

async function traverseWorkloads(ctx: Context): Promise<void> {
  const thread = ctx.data.ownThreads[0]!;
  const mid = Math.floor(thread.spine.length / 2);
  const origin = thread.spine[mid]!;
  const size = thread.ids.length;
  // The full answers, and a thread view's sparse one (issue 16: fields= loads no links).
  for (const [label, up, down, fields] of [
    ['up 100', 100, 0, null],
    ['down 100', 0, 100, null],
    ['down 100', 0, 100, 'id,content,author,parent_id,timestamp'],
  ] as const) {
    await latency(ctx, {
      workload: `traverse: ${label} in a ${size}-message thread${fields ? `, fields=${fields}` : ''}`,
      request: () => ({
        path:
          `/v1/messages/traverse-from/${origin}?up_depth=${up}&down_depth=${down}` +
          (fields ? `&fields=${fields}` : ''),
        headers: bearer(ctx.viewer),
      }),
      limit: ctx.limits.traverse(ctx.viewer, origin, up, down, fields === null),
      target: (p99) => underTarget(30, p99, false, ctx.profile),
    });
  }
  await latency(ctx, {
    workload: `tree-ids of the ${size}-message thread`,
    request: () => ({ path: `/v1/messages/${origin}/tree-ids`, headers: bearer(ctx.viewer) }),
    limit: ctx.limits.treeIds(ctx.viewer, origin),
    target: () => null,
  });
}

/**
 * Depth of the reply whose context is read, and the length of the bot's starting context (issue
 * 41); the smoke run, which only checks that the workload runs, posts less.
 */
const contextSizes = (profile: Profile) =>
  profile.name === 'smoke' ? { depth: 10, starting: 5 } : { depth: 50, starting: 20 };

/**
 * The conversation context read (issue 41): a reply 50 deep, read by a person (51 entries) and by a
 * bot whose context origin starts a 20-message default chain (71 entries; less in the smoke run).
 * Made through the API in a few requests: the lead posts the thread to a bot of its own as one
 * chained post, and the bot's starting context as another, names each default child and sets the
 * bot's origin. Measured with
 * the view cache off (SKEIN_VIEW_CACHE_MB=0; a second service process unless the run's own already
 * has it off): one connection asking the same URL again and again would otherwise read the cache.
 */
async function contextWorkloads(ctx: Context): Promise<void> {
  const began = performance.now();
  const seed = ctx.profile.seed;
  const { depth, starting: startingLength } = contextSizes(ctx.profile);
  const [bot] = await delegatedUsers(ctx, 'bench-ctx', 1, true);
  const lead = ctx.lead;
  const chained = (salt: number, length: number) => ({
    messages: Array.from({ length }, (_, i) => ({
      content: contentOf(seed + salt, i),
      recipients: [`uid:${bot!.uid}`],
    })),
  });
  const thread = await ctx.api.post(lead.token, chained(601, depth + 1));
  const reply = thread[depth]!.id;
  const starting = await ctx.api.post(lead.token, chained(602, startingLength));
  await mapPool(starting.slice(0, -1), 8, (message, i) =>
    ctx.api.call('PATCH', `/v1/messages/${message.id}/default_outgoing`, {
      token: lead.token,
      body: { default_outgoing: starting[i + 1]!.id },
    }),
  );
  await ctx.api.call('PATCH', `/v1/managed/users/${bot!.uid}`, {
    token: lead.token,
    body: { bot: { context_origin_id: starting[0]!.id } },
  });

  log(`context: thread and starting context posted in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  const ownIsUncached = process.env.SKEIN_VIEW_CACHE_MB === '0';
  const uncached = ownIsUncached
    ? ctx.service
    : await startService({
        ...ctx.serviceEnv(await freePort(), path.join(ctx.tmp, 'context-service')),
        SKEIN_VIEW_CACHE_MB: '0',
      });
  log(`context: set up in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  try {
    const contextPath = `/v1/messages/${reply}/context`;
    // A fresh process's first reads run before V8 has compiled the path. Unmeasured, as the
    // latency rows' own warm-up requests.
    for (let i = 0; i < warmups(ctx.profile, 60); i++) {
      for (const reader of [lead, bot!]) {
        await (await fetch(`${uncached.url}${contextPath}`, { headers: bearer(reader) })).text();
      }
    }
    // The read's defaults: the requests send no bounds.
    const limit = DEFAULT_CONTEXT_ENTRIES;
    const maxChars = DEFAULT_CONTEXT_CHARS;
    for (const [reader, label, entries] of [
      [lead, `a reply ${depth} deep`, depth + 1],
      [bot!, `the same, a bot with a ${startingLength}-message starting context`, depth + 1 + startingLength],
    ] as const) {
      const answer = await ctx.api.call<{ entries: unknown[] }>('GET', contextPath, { token: reader.token });
      if (answer.entries.length !== entries)
        throw new Error(`the context of ${label} holds ${answer.entries.length} entries, not ${entries}`);
      await latency(ctx, {
        workload: `context: ${label} (${entries} entries), view cache off`,
        baseUrl: uncached.url,
        request: () => ({ path: contextPath, headers: bearer(reader) }),
        limit: ctx.limits.context(reader, reply, limit, maxChars),
        target: (p99) => underTarget(20, p99, false, ctx.profile),
      });
    }
  } finally {
    if (!ownIsUncached) await uncached.stop();
  }
}

/** Two-word queries, both words of frequency rank 10 to 500 (common to rare-ish). */
function searchQueries(ctx: Context): string[] {
  const random = new Prng(ctx.profile.seed + 11);
  return Array.from(
    { length: 50 },
    () => `${wordOfRank(10 + random.below(490))} ${wordOfRank(10 + random.below(490))}`,
  );
}

async function searchWorkloads(ctx: Context): Promise<void> {
  const queries = searchQueries(ctx);
  await latency(ctx, {
    workload: 'search: two-word content query',
    request: (i) => ({
      path: `/v1/messages/search?q=${encodeURIComponent(queries[i % queries.length]!)}`,
      headers: bearer(ctx.viewer),
    }),
    limit: ctx.limits.search(ctx.viewer, queries, 15),
    target: (p99) => underTarget(100, p99, true, ctx.profile),
  });
  const sources = viewerVisibleIds(ctx, 50);
  await latency(ctx, {
    workload: 'similar: 5 most similar messages',
    request: (i) => ({
      path: `/v1/messages/similar/${sources[i % sources.length]!}`,
      headers: bearer(ctx.viewer),
    }),
    limit: ctx.limits.similar(ctx.viewer, sources, 5, 3),
    target: (p99) => underTarget(100, p99, true, ctx.profile),
  });
}

async function delegatedUsers(
  ctx: Context,
  prefix: string,
  count: number,
  isBot = false,
): Promise<Session[]> {
  return mapPool(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const uid = await ctx.api.createManaged(ctx.lead.token, `${prefix}${i}-${ctx.run}`, isBot);
      const token = await ctx.api.delegate(ctx.lead.token, uid);
      return { uid, token, sessionId: sessionIdOf(token) };
    },
  );
}

/** Sessions of the seeded fan-out members (managed users of the lead), delegated through the API once. */
async function membersOf(ctx: Context): Promise<Session[]> {
  if (ctx.members.length === 0) {
    ctx.members = await mapPool(ctx.data.fanout!.members, 8, async (member) => {
      const token = await ctx.api.delegate(ctx.lead.token, member.uid);
      return { uid: member.uid, token, sessionId: sessionIdOf(token) };
    });
  }
  return ctx.members;
}

const wsUrlOf = (ctx: Context, token: string) =>
  `${ctx.service.url.replace(/^http/, 'ws')}/v1/ws/v1?access_token=${encodeURIComponent(token)}`;

/** Unmeasured posts before the fan-out is timed (one only in the smoke run, which times nothing). */
const fanOutWarmupPosts = (profile: Profile) => (profile.name === 'smoke' ? 1 : 60);

async function fanOutWorkload(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const began = performance.now();
  const members = await membersOf(ctx);
  const channel = ctx.data.fanout!.channel_id;
  log(`fan-out: ${members.length} member sessions in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  let listeners: FanOutListeners | null = null;
  let bareListeners: FanOutListeners | null = null;
  try {
    listeners = await FanOutListeners.open(
      members.map((m) => wsUrlOf(ctx, m.token)),
      true,
    );
    const sockets = listeners.count;
    const answered: number[] = [];
    const postOnce = async (i: number) => {
      const t0 = performance.now();
      const [message] = await ctx.api.post(ctx.lead.token, {
        content: contentOf(profile.seed + 301, i),
        channel_ids: [channel],
      });
      answered.push(performance.now() - t0);
      return message!;
    };
    // Warm-up, and a check that the frames are the notification of that post.
    await listeners.arm();
    const first = await postOnce(-1);
    const event = (await listeners.lastOf(sockets, 15_000)).firstEvent as
      { type?: string; content?: { messages?: { id: string }[] } } | undefined;
    if (event?.type !== 'channels' || event.content?.messages?.[0]?.id !== first.id)
      throw new Error(`unexpected notification frame: ${JSON.stringify(event).slice(0, 300)}`);
    // A fresh Neo4j runs a 1,000-member post 4-5 times slower until the JVM has compiled its path
    // (490 ms for the payloads of the first post, under 100 ms by the tenth), and the post's own
    // statements reach their steady time only after some hundreds of posts (40 ms after ten, 12 ms
    // warm, measured 2026-11-25): warm up longer, and measure steady state.
    for (let i = 1; i < fanOutWarmupPosts(profile); i++) {
      await listeners.arm();
      await postOnce(-1 - i);
      await listeners.lastOf(sockets, 15_000);
    }
    answered.length = 0;
    const watched = { service: ctx.service.pid, neo4j: ctx.neo4jPid, bare: ctx.bare.pid };
    const skein = await measureFanOut(
      listeners,
      profile.fanoutPosts,
      async (i) => {
        await postOnce(i);
      },
      watched,
    );
    const frameBytes = skein.frameBytes;
    // The answers of the rounds without load (postOnce records every answer, the loaded rounds' too).
    const answeredAlone = [...answered];
    const loaded = await fanOutUnderPostingLoad(ctx, listeners, postOnce, watched);
    // The post's own database work (one message, one channel event, its numbering), one at a time.
    const limitPost = await runPool(
      ctx.limits.post((_w, i) => ({
        author: ctx.lead,
        contents: [contentOf(profile.seed + 302, i)],
        recipientUids: [],
        channelIds: [channel],
      })),
      { concurrency: 1, seconds: profile.duration, warmupOps: 1 },
    );
    await listeners.close();
    listeners = null;

    bareListeners = await FanOutListeners.open(
      members.map(() => `${ctx.bare.url.replace(/^http/, 'ws')}/ws`),
      false,
    );
    await bareListeners.arm();
    await fetch(`${ctx.bare.url}/broadcast/${frameBytes}`, { method: 'POST' });
    await bareListeners.lastOf(bareListeners.count, 15_000);
    const bare = await measureFanOut(
      bareListeners,
      profile.fanoutPosts,
      async () => {
        const res = await fetch(`${ctx.bare.url}/broadcast/${frameBytes}`, { method: 'POST' });
        await res.text();
      },
      watched,
    );
    const n = members.length;
    if (skein.incomplete) ctx.failures.push(`fan-out: ${skein.incomplete} posts did not reach every socket`);
    const incomplete = skein.incomplete
      ? `; ${skein.incomplete} of ${skein.rounds} posts missed a socket`
      : '';
    ctx.rows.push({
      workload: `fan-out: channel post to ${n} sockets, last frame`,
      metric: 'p50 ms',
      skein: skein.p50,
      limit: bare.p50,
      limitOf: 'bare ws',
      http: null,
      target: null,
    });
    ctx.rows.push({
      workload: `fan-out: channel post to ${n} sockets, last frame`,
      metric: 'p99 ms',
      skein: skein.p99,
      limit: bare.p99,
      limitOf: 'bare ws',
      http: null,
      // 1,000 members within 100 ms; 10,000 (the large profile) within a second.
      target:
        n >= 10_000
          ? underTarget(1000, skein.p99, false, profile)
          : n >= 1000
            ? underTarget(100, skein.p99, false, profile)
            : { text: 'p99 < 100 ms (1,000 sockets)', pass: null },
      note:
        `${skein.rounds} posts, frame ${frameBytes} bytes${incomplete}; last frame after the POST answer: p50 ` +
        `${skein.afterAnswer.p50.toFixed(1)} ms, p99 ${skein.afterAnswer.p99.toFixed(1)} ms (negative: before it); ` +
        `slowest rounds ${slowestOf(skein)} (bare ws ${slowestOf(bare)})${kernelOf(skein, bare)}`,
    });
    const { fanOut: busy, posting, endedEarly } = loaded;
    if (busy.incomplete)
      ctx.failures.push(`fan-out under posting load: ${busy.incomplete} posts missed a socket`);
    if (endedEarly)
      ctx.failures.push('fan-out under posting load: the posting load ended before the last round');
    ctx.rows.push({
      workload: `fan-out: channel post to ${n} sockets while ${POSTING_CLIENTS} clients post elsewhere, last frame`,
      metric: 'p50 ms',
      skein: busy.p50,
      limit: skein.p50,
      limitOf: 'no load',
      http: null,
      target: null,
    });
    ctx.rows.push({
      workload: `fan-out: channel post to ${n} sockets while ${POSTING_CLIENTS} clients post elsewhere, last frame`,
      metric: 'p99 ms',
      skein: busy.p99,
      limit: skein.p99,
      limitOf: 'no load',
      http: null,
      target:
        n >= 10_000
          ? underTarget(1000, busy.p99, false, profile)
          : n >= 1000
            ? underTarget(100, busy.p99, false, profile)
            : { text: 'p99 < 100 ms (1,000 sockets)', pass: null },
      note:
        `${busy.rounds} posts; meanwhile ${posting.count} posts to one recipient each ` +
        `(${posting.unitsPerSec.toFixed(0)}/s, p50 ${posting.p50.toFixed(1)} ms, p99 ${posting.p99.toFixed(1)} ms` +
        `${posting.non2xx ? `, ${posting.non2xx} non-2xx` : ''}); slowest rounds ${slowestOf(busy)}`,
    });
    ctx.rows.push({
      workload: `fan-out: the channel post answered (${n} members)`,
      metric: 'p50 ms',
      skein: percentile(answeredAlone, 50),
      limit: limitPost.p50,
      limitOf: 'neo4j-driver',
      http: null,
      target: null,
    });
    ctx.rows.push({
      workload: `fan-out: the channel post answered (${n} members)`,
      metric: 'p99 ms',
      skein: percentile(answeredAlone, 99),
      limit: limitPost.p99,
      limitOf: 'neo4j-driver',
      http: null,
      target: null,
      note: 'POST /v1/messages with channel_ids; limit: the same statements through neo4j-driver',
    });
  } finally {
    await listeners?.close();
    await bareListeners?.close();
  }
}

/** Clients posting elsewhere while the fan-out is measured again (issue 40's variant). */
const POSTING_CLIENTS = 16;

/**
 * POSTING_CLIENTS clients posting for `seconds`, each as soon as its last post was answered, to one
 * recipient each in conversations of their own, after `warmupRequests` unmeasured posts (measureHttp's
 * default unless given); `startAt` numbers the first post (a load run in parts continues the sequence).
 */
function postingLoad(
  ctx: Context,
  seconds: number,
  startAt = 0,
  warmupRequests?: number,
): Promise<HttpMeasured> {
  const writerOf = (i: number) => ctx.writers[i % ctx.writers.length]!;
  return measureHttp({
    baseUrl: ctx.service.url,
    method: 'POST',
    connections: POSTING_CLIENTS,
    seconds,
    startAt,
    ...(warmupRequests === undefined ? {} : { warmupRequests }),
    request: (i) => ({
      path: '/v1/messages',
      headers: bearer(writerOf(i)),
      body: JSON.stringify({
        content: contentOf(ctx.profile.seed + 303, i),
        recipients: recipientsFor(ctx, i)
          .slice(0, 1)
          .map((uid) => `uid:${uid}`),
      }),
    }),
  });
}

/**
 * The fan-out rounds again, while POSTING_CLIENTS clients post, each as soon as its last post was
 * answered, to one recipient each in conversations of their own: the channel post shares Neo4j, the
 * sequencer and the event path with a steady stream of small posts, as it would in a busy service.
 * The load runs for a fixed time sized to outlast the rounds; `endedEarly` says when it did not.
 */
async function fanOutUnderPostingLoad(
  ctx: Context,
  listeners: FanOutListeners,
  postOnce: (i: number) => Promise<unknown>,
  watched: Record<string, number | null>,
): Promise<{ fanOut: FanOutResult; posting: HttpMeasured; endedEarly: boolean }> {
  const rounds = ctx.profile.fanoutPosts;
  const secondsPerRound = listeners.count >= 10_000 ? 3 : 1;
  let loadEnded = false;
  const load = postingLoad(ctx, 2 + rounds * secondsPerRound).finally(() => {
    loadEnded = true;
  });
  // The posting reaches its steady rate before the first round.
  await sleep(1000);
  const fanOut = await measureFanOut(
    listeners,
    rounds,
    async (i) => {
      await postOnce(10_000 + i);
    },
    watched,
  );
  const endedEarly = loadEnded;
  return { fanOut, posting: await load, endedEarly };
}

/**
 * The slowest rounds with the processes' CPU time in them:
 * "612 ms (CPU ms service 300, neo4j 120, bare 0, load generator 30, listeners 410), …".
 */
const slowestOf = (result: FanOutResult) =>
  result.slowest
    .map((r) => {
      const cpu = Object.entries(r.cpu).map(([name, ms]) => `${name} ${ms.toFixed(0)}`);
      return `${r.ms.toFixed(0)} ms (CPU ms ${cpu.join(', ')})`;
    })
    .join(', ');

const kernelOf = (skein: FanOutResult, bare: FanOutResult) =>
  skein.kernel && bare.kernel
    ? `; kernel receive-backlog drops ${skein.kernel.backlogDrops} (bare ws ${bare.kernel.backlogDrops}), ` +
      `TCP retransmissions ${skein.kernel.retransmits} (bare ws ${bare.kernel.retransmits})`
    : '';

async function idleSocketsWorkload(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const holders = await membersOf(ctx);
  const n = profile.idleSockets;
  let sockets: WebSocket[] = [];
  try {
    const before = rssMiB(ctx.service.pid);
    const began = performance.now();
    sockets = await openMany(
      Array.from({ length: n }, (_, i) => wsUrlOf(ctx, holders[i % holders.length]!.token)),
      null,
      true,
      200,
    );
    const openSeconds = (performance.now() - began) / 1000;
    log(`${n} sockets open in ${openSeconds.toFixed(1)} s`);
    // Let the handshakes' garbage settle before reading the resident size.
    const settle = profile.name === 'smoke' ? 1000 : 2000;
    await sleep(settle);
    const rss = rssMiB(ctx.service.pid);
    await terminateAll(sockets);
    sockets = [];
    const bareBefore = rssMiB(ctx.bare.pid);
    sockets = await openMany(
      Array.from({ length: n }, () => `${ctx.bare.url.replace(/^http/, 'ws')}/ws`),
      null,
      false,
      200,
    );
    await sleep(settle);
    const bareRss = rssMiB(ctx.bare.pid);
    const perSocket = ((rss - before) * 1024) / n;
    ctx.rows.push({
      workload: `${n} idle sockets: service RSS`,
      metric: 'MiB',
      skein: rss,
      limit: bareRss,
      limitOf: 'bare ws',
      http: null,
      target:
        n >= 10_000
          ? { text: '< 500 MiB', pass: rss < 500 }
          : { text: '< 500 MiB (10,000 sockets)', pass: null },
      note:
        `RSS ${before.toFixed(0)} MiB before the sockets (${perSocket.toFixed(1)} KiB per socket); ` +
        `bare server ${bareBefore.toFixed(0)} → ${bareRss.toFixed(0)} MiB; ` +
        `${n} sockets opened in ${openSeconds.toFixed(1)} s over ${holders.length} users`,
    });
  } finally {
    await terminateAll(sockets);
  }
}

async function webhookWorkload(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const receiver = await startReceiver();
  try {
    // Bots with a verified endpoint each (the receiver, at /hook/<n>): a post to all of them makes
    // one delivery per bot, so a short burst of posts leaves a backlog for the dispatcher to drain.
    const bots = await delegatedUsers(ctx, 'bench-bot', profile.webhookBots, true);
    await mapPool(bots, 4, async (bot, i) => {
      const url = `${receiver.url}/hook/${i}`;
      await ctx.api.call('POST', '/v1/auth/contacts/endpoint/request', { token: bot.token, body: { url } });
      await ctx.api.call('POST', '/v1/auth/contacts/endpoint/verify', { token: bot.token, body: { url } });
    });
    const writerOf = (i: number) => ctx.writers[i % ctx.writers.length]!;
    const postTo = async (i: number, to: Session[]) => {
      const [message] = await ctx.api.post(writerOf(i).token, {
        content: contentOf(profile.seed + 401, i),
        recipients: to.map((bot) => `uid:${bot.uid}`),
      });
      return message!.id;
    };

    // Delay added by the outbox: one post at a time to one bot, from the answer to the receiver's request.
    const afterAnswer: number[] = [];
    const afterSend: number[] = [];
    let lost = 0;
    for (let i = 0; i < profile.webhookSequential + 2; i++) {
      const t0 = performance.now();
      const id = await postTo(i, [bots[0]!]);
      const answeredAt = performance.now();
      const at = await receiver.waitFor(`${bots[0]!.uid}/${id}`, 20_000);
      if (i < 2) continue; // warm-up
      if (at === null) {
        lost++;
        ctx.failures.push(`webhooks: the delivery of ${id} did not come within 20 s`);
      } else {
        afterAnswer.push(at - answeredAt);
        afterSend.push(at - t0);
      }
    }

    // Deliveries per second: the receiver stops answering while a burst of posts to every bot
    // fills the outbox (the dispatcher's in-flight slots stay taken), then answers again; the rate
    // is how fast the backlog drains, from that moment to the last delivery.
    const posts = Math.max(1, Math.ceil(profile.webhookBurst / bots.length));
    receiver.hold(12_000);
    const t0 = performance.now();
    const ids = await mapPool(
      Array.from({ length: posts }, (_, i) => 1000 + i),
      profile.connections,
      (i) => postTo(i, bots),
    );
    const postsDone = performance.now();
    const released = receiver.release();
    const keys = ids.flatMap((id) => bots.map((bot) => `${bot.uid}/${id}`));
    const arrivals = await Promise.all(keys.map((key) => receiver.waitFor(key, 120_000)));
    const arrived = arrivals.filter((at): at is number => at !== null);
    const drained = arrived.filter((at) => at > released.at);
    const last = Math.max(...arrived);
    const rate = drained.length / ((last - released.at) / 1000);
    if (arrived.length < keys.length)
      ctx.failures.push(`webhooks: ${keys.length - arrived.length} deliveries missing after 120 s`);

    const bytes = receiver.bodyBytes;
    const http = await measureHttp({
      baseUrl: receiver.url,
      method: 'POST',
      connections: 32,
      seconds: bareSeconds(profile),
      request: () => ({
        path: '/hook/x',
        body: JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 10)) }),
      }),
    });
    ctx.rows.push({
      workload: `webhooks: ${keys.length} deliveries to ${bots.length} bots`,
      metric: 'deliveries/s',
      skein: rate,
      limit: null,
      limitOf: 'none',
      http: http.opsPerSec,
      target: null,
      note:
        `${posts} posts to all ${bots.length} bots in ${((postsDone - t0) / 1000).toFixed(1)} s ` +
        `(${(keys.length / ((postsDone - t0) / 1000)).toFixed(0)} deliveries/s created) while the receiver held ` +
        `${released.held} requests; then ${drained.length} deliveries in ${((last - released.at) / 1000).toFixed(1)} s; ` +
        `${keys.length - arrived.length} missing after 120 s. Bare HTTP: the receiver hit by autocannon with 32 ` +
        `connections (the dispatcher's in-flight cap) and ${bytes}-byte bodies`,
    });
    ctx.rows.push({
      workload: 'webhooks: outbox delay after the POST answer',
      metric: 'p50 ms',
      skein: percentile(afterAnswer, 50),
      limit: null,
      limitOf: 'none',
      http: null,
      target: null,
    });
    ctx.rows.push({
      workload: 'webhooks: outbox delay after the POST answer',
      metric: 'p99 ms',
      skein: percentile(afterAnswer, 99),
      limit: null,
      limitOf: 'none',
      http: null,
      target: null,
      note:
        `${afterAnswer.length} posts one at a time to one bot; from sending the POST: p50 ` +
        `${percentile(afterSend, 50).toFixed(1)} ms, p99 ${percentile(afterSend, 99).toFixed(1)} ms` +
        (lost ? `; ${lost} not delivered within 20 s` : ''),
    });
  } finally {
    await receiver.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Scale-out (issue 17): the same load on one instance, then spread over two, on one Neo4j

const METRICS_TOKEN = 'bench-metrics-token';

/** The text of a service instance's /metrics. */
async function metricsOf(instance: Child): Promise<string> {
  const res = await fetch(`${instance.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** Requests a service instance has answered so far (its /metrics counter; the scrapes left out). */
async function requestsServed(instance: Child): Promise<number> {
  let served = 0;
  for (const line of (await metricsOf(instance)).split('\n')) {
    if (!line.startsWith('skein_http_requests_total{') || line.includes('route="/metrics"')) continue;
    served += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return served;
}

/** What a scale-out measurement reads before and after: CPU time per process (ms) and requests served. */
interface Reading {
  /** Instances A and B. */
  instances: number[];
  /** The run's own instance (no Redis), idle meanwhile. */
  main: number;
  neo4j: number | null;
  /** This process: the load generator. */
  loadGenerator: number;
  served: number;
  at: number;
}

async function readCounters(ctx: Context, instances: Child[]): Promise<Reading> {
  const served = (await Promise.all(instances.map(requestsServed))).reduce((a, b) => a + b, 0);
  const usage = process.cpuUsage();
  return {
    instances: instances.map((instance) => cpuMs(instance.pid)),
    main: cpuMs(ctx.service.pid),
    neo4j: ctx.neo4jPid === null ? null : cpuMs(ctx.neo4jPid),
    loadGenerator: (usage.user + usage.system) / 1000,
    served,
    at: performance.now(),
  };
}

/** One configuration's sums over its measured parts. */
interface Spread {
  measured: HttpMeasured[];
  served: number;
  /** CPU ms of A and B together, of B alone, of the idle main instance, of Neo4j, of the load generator. */
  service: number;
  second: number;
  main: number;
  neo4j: number | null;
  loadGenerator: number;
  ms: number;
}

const emptySpread = (): Spread => ({
  measured: [],
  served: 0,
  service: 0,
  second: 0,
  main: 0,
  neo4j: 0,
  loadGenerator: 0,
  ms: 0,
});

/**
 * The load of `connections` connections spread over the given instances (connection k on instance
 * k mod n: one autocannon per instance, running at the same time), with the CPU time each process
 * spent and the requests the instances answered, read before and after.
 */
async function measureSpread(
  ctx: Context,
  instances: Child[],
  targets: Child[],
  spec: { method: 'GET' | 'POST'; connections: number; request: (i: number) => HttpRequestSpec },
  seconds: number,
  startAt: number,
  into: Spread | null,
): Promise<void> {
  const before = await readCounters(ctx, instances);
  const parts = await Promise.all(
    targets.map((target, k) =>
      measureHttp({
        baseUrl: target.url,
        method: spec.method,
        connections:
          Math.floor(spec.connections / targets.length) + (k < spec.connections % targets.length ? 1 : 0),
        seconds,
        request: spec.request,
        warmupRequests: 0,
        startAt: startAt + k * (PART_STRIDE / 4),
      }),
    ),
  );
  // Autocannon drops the requests still in flight when it stops (at most one per connection): let
  // the service finish them before the second reading. Their CPU is counted; they may not be.
  await sleep(300);
  const after = await readCounters(ctx, instances);
  if (!into) return;
  // The parts ran at the same time: their requests add up over one window.
  const window = Math.max(...parts.map((p) => p.seconds));
  const samples = parts.flatMap((p) => p.samples);
  into.measured.push({
    ...summarize(
      samples,
      parts.reduce((sum, p) => sum + p.units, 0),
      parts.reduce((sum, p) => sum + p.errors, 0),
      window,
    ),
    non2xx: parts.reduce((sum, p) => sum + p.non2xx, 0),
  });
  into.served += after.served - before.served;
  into.service += after.instances.reduce((sum, v, k) => sum + v - before.instances[k]!, 0);
  into.second += after.instances[1]! - before.instances[1]!;
  into.main += after.main - before.main;
  into.neo4j =
    after.neo4j === null || before.neo4j === null ? null : into.neo4j! + after.neo4j - before.neo4j;
  into.loadGenerator += after.loadGenerator - before.loadGenerator;
  into.ms += after.at - before.at;
}

/** A latency for a note: '—' when nothing was answered. */
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '—');

const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function scaleOutWorkload(ctx: Context): Promise<void> {
  const { profile } = ctx;
  let redis: Child;
  try {
    redis = await startRedis();
  } catch (error) {
    // Not a broken workload: the machine has no Redis (CI installs it with apt-get). The row says so.
    const reason = (error as Error).message.split('\n')[0]!.slice(0, 300);
    log(`scale-out skipped: Redis could not be started: ${reason}`);
    ctx.rows.push({
      workload: 'scale-out: 2 instances on one Neo4j and one Redis',
      metric: 'req/s',
      skein: null,
      limit: null,
      limitOf: 'none',
      http: null,
      target: null,
      note: `skipped: Redis could not be started (${reason})`,
    });
    return;
  }
  const instances: Child[] = [];
  try {
    const shared = path.join(ctx.tmp, 'scale-out-files');
    // One after the other: the first compiles dist/ when src/ changed since the run's own instance started.
    for (const name of ['a', 'b']) {
      instances.push(
        await startService({
          ...ctx.serviceEnv(await freePort(), path.join(ctx.tmp, `scale-out-${name}`)),
          REDIS_URL: redis.url,
          SKEIN_FILES_DIR: shared,
          SKEIN_METRICS_TOKEN: METRICS_TOKEN,
        }),
      );
    }
    const [a, b] = instances as [Child, Child];
    const seed = profile.seed;
    const writerOf = (i: number) => ctx.writers[i % ctx.writers.length]!;
    const ids = viewerVisibleIds(ctx, 1000);
    const operations = [
      {
        name: 'post: single message, 1 recipient',
        metric: 'msgs/s' as const,
        per: 'message',
        method: 'POST' as const,
        warm: profile.connections,
        request: (i: number): HttpRequestSpec => ({
          path: '/v1/messages',
          headers: bearer(writerOf(i)),
          body: JSON.stringify({
            content: contentOf(seed + 501, i),
            recipients: [`uid:${recipientsFor(ctx, i)[0]!}`],
          }),
        }),
      },
      {
        name: 'read: GET /v1/messages/{id}',
        metric: 'req/s' as const,
        per: 'request',
        method: 'GET' as const,
        warm: profile.connections * 3,
        request: (i: number): HttpRequestSpec => ({
          path: `/v1/messages/${ids[i % ids.length]!}`,
          headers: bearer(ctx.viewer),
        }),
      },
    ];
    // CPU time is counted in 10 ms ticks: each side gets twice the other workloads' time, in two
    // halves ordered one, two, two, one, so that a steady drift (a JVM still warming up, a machine
    // getting busier) weighs on both sides alike; the smoke run one short part each.
    const parts = profile.name === 'smoke' ? 1 : 2;
    const seconds = profile.name === 'smoke' ? 1 : (profile.duration * 2) / parts;
    for (const [n, op] of operations.entries()) {
      const spec = { method: op.method, connections: profile.connections, request: op.request };
      const base = (20 + n * 10) * PART_STRIDE;
      for (const [k, instance] of instances.entries()) {
        await mapPool(
          Array.from({ length: warmups(profile, op.warm) }, (_, i) => base + k * 1000 + i),
          4,
          (i) => probe(ctx, op.method, op.request(i), instance.url),
        );
      }
      // A fresh instance (and, with --only scaleout, a fresh Neo4j) runs slower until the JIT has
      // compiled its path: one unmeasured round on both first, as long as a side's measurement.
      if (profile.name !== 'smoke')
        await measureSpread(ctx, instances, instances, spec, seconds * parts, base + PART_STRIDE / 2, null);
      const loadBefore = loadNow();
      const one = emptySpread();
      const two = emptySpread();
      for (let part = 0; part < parts; part++) {
        const at = base + (part + 1) * (PART_STRIDE / 8);
        const order = part % 2 === 0 ? [one, two] : [two, one];
        for (const [k, into] of order.entries()) {
          const targets = into === one ? [a] : [a, b];
          await measureSpread(ctx, instances, targets, spec, seconds, at + k * (PART_STRIDE / 16), into);
        }
      }
      const loadAfter = loadNow();
      const alone = mergeHttp(one.measured);
      const spread = mergeHttp(two.measured);
      const failures = [
        alone.non2xx + spread.non2xx ? `${alone.non2xx + spread.non2xx} non-2xx answers` : '',
        alone.errors + spread.errors ? `${alone.errors + spread.errors} connection errors` : '',
      ].filter(Boolean);
      for (const failure of failures) ctx.failures.push(`scale-out ${op.name}: ${failure}`);
      const perRequest = (cpu: number | null, sums: Spread) =>
        cpu === null || sums.served === 0 ? null : cpu / sums.served;
      const cpuShare = (sums: Spread) =>
        `${((sums.service / sums.ms) * 100).toFixed(0)}% of a core in the instances, ` +
        (sums.neo4j === null ? '' : `${((sums.neo4j / sums.ms) * 100).toFixed(0)}% in Neo4j, `) +
        `${((sums.loadGenerator / sums.ms) * 100).toFixed(0)}% in the load generator`;
      ctx.rows.push({
        workload: `scale-out: ${op.name}, spread over 2 instances`,
        metric: op.metric,
        skein: spread.unitsPerSec,
        limit: alone.unitsPerSec,
        limitOf: '1 instance',
        http: null,
        target: null,
        note:
          `${profile.connections} connections in all, on instance A alone, or alternating A and B (same ` +
          `Neo4j, REDIS_URL of a local redis-server), ${parts} × ${seconds} s each (one, two, two, one); ` +
          `p50/p99 ms: one instance ` +
          `${ms(alone.p50)}/${ms(alone.p99)}, two ${ms(spread.p50)}/${ms(spread.p99)}; ` +
          `CPU used, one instance: ${cpuShare(one)}; two: ${cpuShare(two)}; load average ${loadBefore} ` +
          `before, ${loadAfter} after` +
          (failures.length ? `; ${failures.join(', ')}` : ''),
      });
      ctx.rows.push({
        workload: `scale-out: ${op.name}, service CPU per ${op.per}`,
        metric: 'CPU ms',
        skein: perRequest(two.service, two),
        limit: perRequest(one.service, one),
        limitOf: '1 instance',
        http: null,
        target: null,
        note:
          `/proc/<pid>/stat utime+stime of A and B together over the requests they answered (${one.served} ` +
          `and ${two.served}, their /metrics counters); B idle during the one-instance part: ` +
          `${((one.second / one.ms) * 1000).toFixed(0)} ms/s; the load generator: ` +
          `${perRequest(one.loadGenerator, one)?.toFixed(2) ?? '—'} / ${perRequest(two.loadGenerator, two)?.toFixed(2) ?? '—'} ` +
          `ms per ${op.per}; the run's own instance, idle meanwhile: ${((two.main / two.ms) * 1000).toFixed(0)} ms/s`,
      });
      ctx.rows.push({
        workload: `scale-out: ${op.name}, Neo4j CPU per ${op.per}`,
        metric: 'CPU ms',
        skein: perRequest(two.neo4j, two),
        limit: perRequest(one.neo4j, one),
        limitOf: '1 instance',
        http: null,
        target: null,
        note:
          ctx.neo4jPid === null
            ? 'not measured: the Neo4j of NEO4J_URI is not a child of the bench'
            : "the embedded Neo4j's JVM, /proc/<pid>/stat utime+stime (Bolt workers, commits, GC)",
      });
    }
  } finally {
    for (const instance of instances.reverse()) await instance.stop();
    await redis.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Amplification (security review 2026-12-02, findings 1 and 3): cheap requests of one account that
// cost everyone else. Each probe compares two phases of one run, taken in turns, so that its ratio
// still says something on a loaded machine.

/**
 * Sizes of the amplification probes: posts and seconds are per part, and a phase runs in two parts
 * (see inTurns), so 30 posts and 12 s per phase; the smoke run, which only checks that they run,
 * in one part.
 */
const amplificationSizes = (profile: Profile) =>
  profile.name === 'smoke'
    ? { users: 4, socketsPerUser: 8, posts: 6, seconds: 2 }
    : { users: 50, socketsPerUser: 20, posts: 15, seconds: 6 };

/** The reviewers' paces: profile edits per second; a batch of 25 chained replies every 600 ms. */
const EDITS_PER_SECOND = 24;
const BATCH_EVERY_MS = 600;
const BATCH_LENGTH = 25;
/** The batches reply under a chain this deep, so each context read walks 50 ancestors and more. */
const CHAIN_DEPTH = 50;
/** The reader's pause between two reads: an ordinary client, not a load generator. */
const READ_PAUSE_MS = 20;

/**
 * What a phase cost: the service's Neo4j read transactions, the CPU ms of the service and of the
 * embedded Neo4j (0 for a NEO4J_URI server), over `ms` of wall time.
 */
interface Cost {
  reads: number;
  /** The service's Neo4j write transactions (the typing workload's check that typing writes none). */
  writes: number;
  service: number;
  neo4j: number;
  ms: number;
}

/** Neo4j read and write transactions the run's service has run so far (its /metrics histogram's counts). */
async function neo4jTransactions(ctx: Context): Promise<{ reads: number; writes: number }> {
  const counted = { reads: 0, writes: 0 };
  for (const line of (await metricsOf(ctx.service)).split('\n')) {
    if (!line.startsWith('skein_neo4j_transaction_duration_seconds_count{')) continue;
    const count = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.includes('mode="read"')) counted.reads += count;
    else if (line.includes('mode="write"')) counted.writes += count;
  }
  return counted;
}

/** Runs `work` and reads what it cost. */
async function costOf<T>(ctx: Context, work: () => Promise<T>): Promise<[T, Cost]> {
  const neo4jCpu = () => (ctx.neo4jPid === null ? 0 : cpuMs(ctx.neo4jPid));
  const before = {
    ...(await neo4jTransactions(ctx)),
    service: cpuMs(ctx.service.pid),
    neo4j: neo4jCpu(),
  };
  const at = performance.now();
  const result = await work();
  const ms = performance.now() - at;
  const after = await neo4jTransactions(ctx);
  const cost = {
    reads: after.reads - before.reads,
    writes: after.writes - before.writes,
    service: cpuMs(ctx.service.pid) - before.service,
    neo4j: neo4jCpu() - before.neo4j,
    ms,
  };
  return [result, cost];
}

const totalCost = (costs: Cost[]): Cost =>
  costs.reduce(
    (a, c) => ({
      reads: a.reads + c.reads,
      writes: a.writes + c.writes,
      service: a.service + c.service,
      neo4j: a.neo4j + c.neo4j,
      ms: a.ms + c.ms,
    }),
    { reads: 0, writes: 0, service: 0, neo4j: 0, ms: 0 },
  );
const readsPerSec = (cost: Cost) => cost.reads / (cost.ms / 1000);

/** "CPU: service 15% → 23%, Neo4j 30% → 41% of a core" from one phase to the other. */
function cpuChange(ctx: Context, from: Cost, to: Cost): string {
  const share = (cpu: number, cost: Cost) => `${((cpu / cost.ms) * 100).toFixed(0)}%`;
  const neo4j = ctx.neo4jPid === null ? '' : `, Neo4j ${share(from.neo4j, from)} → ${share(to.neo4j, to)}`;
  return `CPU: service ${share(from.service, from)} → ${share(to.service, to)}${neo4j} of a core`;
}

/** The p99 of each part, in the order they ran: "37, 41" (how much the parts of a phase agree). */
const partsP99 = (parts: number[][]) => parts.map((samples) => ms(percentile(samples, 99))).join(', ');

/**
 * Phase x, then y, then y and x again (once each in the smoke run): a drift of the machine's load
 * then weighs on both. Each phase is given its part number.
 */
async function inTurns<T>(
  profile: Profile,
  x: (part: number) => Promise<T>,
  y: (part: number) => Promise<T>,
): Promise<{ x: T[]; y: T[] }> {
  const order = profile.name === 'smoke' ? [x, y] : [x, y, y, x];
  const out = { x: [] as T[], y: [] as T[] };
  for (const [part, phase] of order.entries()) (phase === x ? out.x : out.y).push(await phase(part));
  return out;
}

/** An account as anyone makes one (POST /v1/auth/register): no verified contact, reading rights only. */
async function registeredToken(ctx: Context, prefix: string): Promise<string> {
  const answer = await ctx.api.call<{ access_token: string }>('POST', '/v1/auth/register', {
    body: { user_tag: `${prefix}-${ctx.run}`, password: 'bench-Registered-Password-2026' },
  });
  return answer.access_token;
}

const ampTarget = (profile: Profile, text: string, pass: boolean): Target => ({
  text,
  pass: profile.name === 'smoke' ? null : pass,
});

async function amplificationWorkload(ctx: Context): Promise<void> {
  // Probe A's users and probe B's recipient are seeded fan-out members.
  const { users } = amplificationSizes(ctx.profile);
  if (ctx.data.fanout!.members.length <= users)
    throw new Error(`the amplification workload needs ${users + 1} fan-out members (--fanout-members)`);
  await profileEditsProbe(ctx);
  await contextsProbe(ctx);
}

/** Probe A's setup: the target's sockets, read by the listener process, and a post to the target. */
interface FramesProbe {
  listeners: FanOutListeners;
  post: (i: number) => Promise<void>;
  posts: number;
}

interface FramesPhase {
  frames: FanOutResult;
  cost: Cost;
  edits: Paced | null;
}

/** Phase "quiet" of probe A: posts to the target one at a time, each timed to its last socket's frame. */
async function quietPhase(ctx: Context, probe: FramesProbe, part: number): Promise<FramesPhase> {
  const [frames, cost] = await costOf(ctx, () =>
    measureFanOut(probe.listeners, probe.posts, (i) => probe.post(part * 1000 + i)),
  );
  return { frames, cost, edits: null };
}

/** Phase "edits": the same while a plain account edits its display name EDITS_PER_SECOND times a second. */
async function editsPhase(
  ctx: Context,
  probe: FramesProbe,
  part: number,
  editorToken: string,
): Promise<FramesPhase> {
  // Up to a second's worth in flight: slow answers do not slow the pace.
  const edits = atRate(
    EDITS_PER_SECOND,
    (i) =>
      ctx.api.call('POST', '/v1/users/profile', {
        token: editorToken,
        body: { display_name: `Editor ${part}.${i}` },
      }),
    EDITS_PER_SECOND,
  );
  const phase = await quietPhase(ctx, probe, part).finally(() => edits.stop());
  return { ...phase, edits: await edits.stop() };
}

/**
 * Finding 1: a profile edit made every open socket judge its credential again. `users` users hold
 * `socketsPerUser` sockets each; posts go to the first one's sockets, without and with another
 * account's profile edits.
 */
async function profileEditsProbe(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const { users, socketsPerUser, posts } = amplificationSizes(profile);
  const [target, ...others] = (await membersOf(ctx)).slice(0, users);
  const poster = ctx.writers[0]!;
  const editorToken = await registeredToken(ctx, 'bench-editor');
  const urlsOf = (sessions: Session[]) =>
    sessions.flatMap((s) => Array<string>(socketsPerUser).fill(wsUrlOf(ctx, s.token)));
  let idle: WebSocket[] = [];
  let listeners: FanOutListeners | null = null;
  try {
    // The other users' sockets only need to be open: the bench process holds them.
    idle = await openMany(urlsOf(others), null, true, 200);
    listeners = await FanOutListeners.open(urlsOf([target!]), true);
    const probe: FramesProbe = {
      listeners,
      posts,
      post: async (i) => {
        await ctx.api.post(poster.token, {
          content: contentOf(profile.seed + 701, i),
          recipients: [`uid:${target!.uid}`],
        });
      },
    };
    // Unmeasured: the first posts and edits of a fresh service and Neo4j run before their paths are compiled.
    await editsPhase(ctx, { ...probe, posts: profile.name === 'smoke' ? 1 : 10 }, 9, editorToken);
    const loadBefore = loadNow();
    const turns = await inTurns(
      profile,
      (part) => quietPhase(ctx, probe, part),
      (part) => editsPhase(ctx, probe, part, editorToken),
    );
    const loadAfter = loadNow();
    const times = (phases: FramesPhase[]) => phases.flatMap((p) => p.frames.times);
    const [quiet, edited] = [times(turns.x), times(turns.y)];
    const [quietCost, editsCost] = [
      totalCost(turns.x.map((p) => p.cost)),
      totalCost(turns.y.map((p) => p.cost)),
    ];
    const edits = turns.y.map((p) => p.edits!);
    const editLatencies = edits.flatMap((e) => e.latencies);
    const editErrors = edits.reduce((sum, e) => sum + e.errors, 0);
    const editSeconds = edits.reduce((sum, e) => sum + e.seconds, 0);
    const incomplete = [...turns.x, ...turns.y].reduce((sum, p) => sum + p.frames.incomplete, 0);
    if (incomplete) ctx.failures.push(`amplification: ${incomplete} posts did not reach every socket`);
    if (editErrors)
      ctx.failures.push(
        `amplification: ${editErrors} profile edits failed (${edits.find((e) => e.firstError)?.firstError})`,
      );
    const workload =
      `amplification: post to ${socketsPerUser} of ${users * socketsPerUser} sockets, last frame, ` +
      `while profile edits at ${EDITS_PER_SECOND}/s`;
    const p99 = { quiet: percentile(quiet, 99), edits: percentile(edited, 99) };
    ctx.rows.push(
      {
        workload,
        metric: 'p50 ms',
        skein: percentile(edited, 50),
        limit: percentile(quiet, 50),
        limitOf: 'no edits',
        http: null,
        target: null,
      },
      {
        workload,
        metric: 'p99 ms',
        skein: p99.edits,
        limit: p99.quiet,
        limitOf: 'no edits',
        http: null,
        target: ampTarget(profile, 'p99 ≤ 1.2 × no edits', p99.edits <= 1.2 * p99.quiet),
        note:
          `${quiet.length} and ${edited.length} posts (one at a time, to one recipient), phases in turns ` +
          `${profile.name === 'smoke' ? 'quiet, edits' : 'quiet, edits, edits, quiet'}; ${editLatencies.length} ` +
          `edits answered (${(editLatencies.length / editSeconds).toFixed(1)}/s, p50 ` +
          `${ms(percentile(editLatencies, 50))} ms), by a registered account with no verified contact; ` +
          `${cpuChange(ctx, quietCost, editsCost)}; p99 of the parts quiet ${partsP99(turns.x.map((p) => p.frames.times))}, ` +
          `edits ${partsP99(turns.y.map((p) => p.frames.times))}; load average ` +
          `${loadBefore} before, ${loadAfter} after`,
      },
      {
        workload,
        metric: 'reads/s',
        skein: readsPerSec(editsCost),
        limit: readsPerSec(quietCost),
        limitOf: 'no edits',
        http: null,
        target: null,
        note: 'the Neo4j read transactions of the service (its /metrics), posts and edits included',
      },
    );
  } finally {
    await listeners?.close();
    await terminateAll(idle);
  }
}

/** Probe B's setup: the recipient U, the author A and its batch i, the reader's correspondent. */
interface ContextsProbe {
  recipient: Session;
  socketsPerUser: number;
  author: Session;
  batch: (i: number) => unknown;
  correspondent: string;
  seconds: number;
}

interface ReaderPhase {
  reader: Measured;
  cost: Cost;
  batches: Paced;
  /** U's frames: received and expected, the last one's size, the listener process's CPU ms reading them. */
  frames: { received: number; expected: number; bytes: number; cpu: number };
}

/** The viewer reads its conversation with `other`, one read at a time, for `seconds`. */
async function readConversation(ctx: Context, other: string, seconds: number): Promise<Measured> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const began = performance.now();
  while (performance.now() - began < seconds * 1000) {
    const t0 = performance.now();
    const res = await fetch(`${ctx.service.url}/v1/messages/conversation/${other}`, {
      headers: bearer(ctx.viewer),
    });
    const text = await res.text();
    if (res.status === 200) latencies.push(performance.now() - t0);
    else {
      errors++;
      firstError ??= `${res.status}: ${text.slice(0, 200)}`;
    }
    await sleep(READ_PAUSE_MS);
  }
  const measured = summarize(latencies, latencies.length, errors, (performance.now() - began) / 1000);
  return firstError === undefined ? measured : { ...measured, firstError };
}

/**
 * Phase "context off" (or "on") of probe B: U holds its sockets without (or with) include_context,
 * A posts a batch to U every BATCH_EVERY_MS, and the viewer, who has nothing to do with either,
 * reads. The frames U's sockets got are counted, up to 10 s after the phase.
 */
async function contextPhase(
  ctx: Context,
  probe: ContextsProbe,
  includeContext: boolean,
  part: number,
): Promise<ReaderPhase> {
  const url = `${wsUrlOf(ctx, probe.recipient.token)}${includeContext ? '&include_context=true' : ''}`;
  const listeners = await FanOutListeners.open(Array<string>(probe.socketsPerUser).fill(url), true);
  try {
    await listeners.arm();
    const listenerCpu = cpuMs(listeners.pid);
    const batches = atRate(1000 / BATCH_EVERY_MS, (i) =>
      ctx.api.post(probe.author.token, probe.batch(part * 10_000 + i)),
    );
    const [reader, cost] = await costOf(ctx, () =>
      readConversation(ctx, probe.correspondent, probe.seconds),
    ).finally(() => batches.stop());
    const posted = await batches.stop();
    const expected = posted.latencies.length * probe.socketsPerUser;
    const { received, frameBytes: bytes } = await listeners.lastOf(expected, 10_000);
    const cpu = cpuMs(listeners.pid) - listenerCpu;
    return { reader, cost, batches: posted, frames: { received, expected, bytes, cpu } };
  } finally {
    await listeners.close();
  }
}

/**
 * Finding 3: contexts in deliveries multiplied Neo4j's work. U holds its sockets, A posts batches of
 * chained replies to U under a deep chain, and an unrelated reader's latency is compared with U's
 * sockets taking contexts and not.
 */
async function contextsProbe(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const { users, socketsPerUser, seconds } = amplificationSizes(profile);
  // A member not among probe A's, whose sockets may still be closing.
  const recipient = (await membersOf(ctx))[users]!;
  const author = ctx.writers[1 % ctx.writers.length]!;
  const to = [`uid:${recipient.uid}`];
  const chain = await ctx.api.post(author.token, {
    messages: Array.from({ length: CHAIN_DEPTH + 1 }, (_, i) => ({
      content: contentOf(profile.seed + 702, i),
      recipients: to,
    })),
  });
  const deepest = chain[CHAIN_DEPTH]!.id;
  const probe: ContextsProbe = {
    recipient,
    socketsPerUser,
    author,
    correspondent: busiestCorrespondent(ctx),
    seconds,
    // Each item after the first replies to the one before (a multi-message post is a chain).
    batch: (i) => ({
      messages: Array.from({ length: BATCH_LENGTH }, (_, k) => ({
        content: contentOf(profile.seed + 703, i * BATCH_LENGTH + k),
        recipients: to,
        ...(k === 0 ? { parent_id: deepest } : {}),
      })),
    }),
  };
  // Unmeasured, as probe A's first round.
  await contextPhase(ctx, { ...probe, seconds: profile.name === 'smoke' ? 1 : 3 }, true, 9);
  const loadBefore = loadNow();
  const turns = await inTurns(
    profile,
    (part) => contextPhase(ctx, probe, false, part),
    (part) => contextPhase(ctx, probe, true, part),
  );
  const loadAfter = loadNow();
  const [off, on] = [merge(turns.x.map((p) => p.reader)), merge(turns.y.map((p) => p.reader))];
  const [offCost, onCost] = [totalCost(turns.x.map((p) => p.cost)), totalCost(turns.y.map((p) => p.cost))];
  const framesOf = (phases: ReaderPhase[]) => {
    const sum = (pick: (p: ReaderPhase) => number) => phases.reduce((total, p) => total + pick(p), 0);
    const kib = Math.max(...phases.map((p) => p.frames.bytes)) / 1024;
    const cpu = (sum((p) => p.frames.cpu) / sum((p) => p.cost.ms)) * 100;
    return (
      `${sum((p) => p.frames.received)} of ${sum((p) => p.frames.expected)} (~${kib.toFixed(0)} KiB each, ` +
      `read with ${cpu.toFixed(0)}% of a core)`
    );
  };
  const batchesOf = (phases: ReaderPhase[]) => {
    const answered = phases.flatMap((p) => p.batches.latencies);
    return `${answered.length} (p50 answer ${ms(percentile(answered, 50))} ms)`;
  };
  for (const phase of [...turns.x, ...turns.y]) {
    const { received, expected } = phase.frames;
    if (received < expected)
      ctx.failures.push(
        `amplification: ${expected - received} of ${expected} frames missing 10 s after a phase`,
      );
    if (phase.batches.errors)
      ctx.failures.push(
        `amplification: ${phase.batches.errors} batches failed (${phase.batches.firstError})`,
      );
  }
  if (off.errors + on.errors)
    ctx.failures.push(
      `amplification: ${off.errors + on.errors} reads failed (${off.firstError ?? on.firstError})`,
    );
  const workload =
    `amplification: another user's conversation read while ${socketsPerUser} sockets get ` +
    `${BATCH_LENGTH}-reply posts every ${BATCH_EVERY_MS} ms, contexts on`;
  ctx.rows.push(
    {
      workload,
      metric: 'p50 ms',
      skein: on.p50,
      limit: off.p50,
      limitOf: 'context off',
      http: null,
      target: null,
    },
    {
      workload,
      metric: 'p99 ms',
      skein: on.p99,
      limit: off.p99,
      limitOf: 'context off',
      http: null,
      target: ampTarget(profile, 'p99 ≤ 1.5 × context off', on.p99 <= 1.5 * off.p99),
      note:
        `GET /v1/messages/conversation/{the viewer's busiest correspondent}, ${off.count} and ${on.count} ` +
        `reads ${READ_PAUSE_MS} ms apart, phases in turns ` +
        `${profile.name === 'smoke' ? 'off, on' : 'off, on, on, off'} of ${seconds} s; replies under a ` +
        `${CHAIN_DEPTH}-deep chain, posts answered off ${batchesOf(turns.x)}, on ${batchesOf(turns.y)}; ` +
        `U's frames received off ${framesOf(turns.x)}, on ${framesOf(turns.y)}; ${cpuChange(ctx, offCost, onCost)}; ` +
        `p99 of the parts off ${partsP99(turns.x.map((p) => p.reader.samples))}, on ` +
        `${partsP99(turns.y.map((p) => p.reader.samples))}; load average ${loadBefore} before, ` +
        `${loadAfter} after`,
    },
    {
      workload,
      metric: 'reads/s',
      skein: readsPerSec(onCost),
      limit: readsPerSec(offCost),
      limitOf: 'context off',
      http: null,
      target: null,
      note: "the Neo4j read transactions of the service (its /metrics), the reader's and the posts' included",
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Streamed replies and typing (issue 51 item 6, decision 031's "Costs")

/**
 * Sizes of the stream workload: one stream's pace and length (runs 1–3), its unmeasured warm-up,
 * run 4's streams at once, each with its pace and length, and the seconds given to the posting load
 * to reach its rate and to the service to settle before its memory is read. The smoke run only
 * checks that they run.
 */
const streamSizes = (profile: Profile) =>
  profile.name === 'smoke'
    ? {
        perSecond: 50,
        seconds: 1,
        warmupChunks: 10,
        streams: 5,
        streamsPerSecond: 10,
        streamsSeconds: 1,
        settle: 0.3,
      }
    : {
        perSecond: 50,
        seconds: 10,
        warmupChunks: 150,
        streams: 100,
        streamsPerSecond: 10,
        streamsSeconds: 5,
        settle: 1,
      };

/** Characters per chunk: a few words of a model's answer. */
const CHUNK_CHARS = 20;

/** Chunk `seq` of a stream: words of the bench's vocabulary, cut or padded to CHUNK_CHARS. */
const chunkOf = (seed: number, seq: number) =>
  `${contentOf(seed, seq)} `.padEnd(CHUNK_CHARS, '.').slice(0, CHUNK_CHARS);

/** A stream as its writer wrote it. */
interface Written {
  stream_id: string;
  /** When chunk seq was sent (monotonicMs, the listener process's clock), indexed by seq. */
  sentAt: number[];
  /** The appends' answers (ms). */
  answered: number[];
  /** The last chunk answered. */
  lastSeq: number;
  errors: number;
  firstError?: string;
}

/** POST /v1/streams as `token`, with a post's audience and no text yet. */
async function openStreamAs(ctx: Context, token: string, audience: Record<string, unknown>): Promise<string> {
  const stream = await ctx.api.call<{ stream_id: string }>('POST', '/v1/streams', { token, body: audience });
  return stream.stream_id;
}

/**
 * Appends `chunks` chunks at `perSecond`, one at a time as the SDKs do: the next is sent when the last
 * was answered, late when that took longer than the pace allows. A failed append ends the stream's
 * writing (the next seq would conflict).
 */
async function writeChunks(
  ctx: Context,
  token: string,
  streamId: string,
  chunks: number,
  perSecond: number,
  salt: number,
): Promise<Written> {
  const written: Written = { stream_id: streamId, sentAt: [], answered: [], lastSeq: 0, errors: 0 };
  const began = monotonicMs();
  for (let seq = 1; seq <= chunks; seq++) {
    const wait = began + ((seq - 1) * 1000) / perSecond - monotonicMs();
    if (wait > 0) await sleep(wait);
    const t0 = monotonicMs();
    written.sentAt[seq] = t0;
    const res = await fetch(`${ctx.service.url}/v1/streams/${streamId}/chunks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seq, text: chunkOf(ctx.profile.seed + salt, seq) }),
    });
    const text = await res.text();
    if (res.status !== 200) {
      written.errors++;
      written.firstError ??= `chunk ${seq} answered ${res.status}: ${text.slice(0, 200)}`;
      break;
    }
    written.answered.push(monotonicMs() - t0);
    written.lastSeq = seq;
  }
  return written;
}

/** One measured run of streams: each chunk's time from its append's send to the last of its readers. */
interface StreamRun {
  times: number[];
  answered: number[];
  chunks: number;
  /** Chunks some reader had not got 15 s after the last append. */
  missing: number;
  /** stream.appended frames per reader and chunk (below 1: frames joined chunks). */
  framesPerChunk: number;
  /** CPU ms the service used while the chunks were written, and the wall time (ms). */
  serviceCpu: number;
  ms: number;
  errors: number;
  firstError?: string;
}

/**
 * Opens one stream per writer, writes them all at once at their pace, waits for the listeners'
 * frames (`readers` sockets per stream), then finishes them (each posts its message). `whileOpen`
 * runs after the last chunk, while the streams are still open (run 4 reads the memory there).
 */
async function streamRun(
  ctx: Context,
  listeners: FanOutListeners,
  writers: { token: string; audience: Record<string, unknown> }[],
  pace: { chunks: number; perSecond: number; salt: number },
  readers: number,
  whileOpen: () => Promise<void> = () => Promise.resolve(),
): Promise<StreamRun> {
  const ids = await mapPool(writers, 16, (w) => openStreamAs(ctx, w.token, w.audience));
  const cpuBefore = cpuMs(ctx.service.pid);
  const began = performance.now();
  const written = await Promise.all(
    writers.map((w, k) =>
      writeChunks(ctx, w.token, ids[k]!, pace.chunks, pace.perSecond, pace.salt + k * 7919),
    ),
  );
  const ms = performance.now() - began;
  const serviceCpu = cpuMs(ctx.service.pid) - cpuBefore;
  await whileOpen();
  const arrivals = await listeners.chunksOf(
    written.map((w) => ({ stream_id: w.stream_id, seq: w.lastSeq })),
    15_000,
    readers,
  );
  const finished = await mapPool(written, 16, (w, k) =>
    ctx.api
      .call('POST', `/v1/streams/${w.stream_id}/finish`, {
        token: writers[k]!.token,
        body: { last_seq: w.lastSeq },
      })
      .then(
        () => null,
        (error: unknown) => (error as Error).message,
      ),
  );
  const run: StreamRun = {
    times: [],
    answered: written.flatMap((w) => w.answered),
    chunks: 0,
    missing: 0,
    framesPerChunk: 0,
    serviceCpu,
    ms,
    errors: written.reduce((sum, w) => sum + w.errors, 0) + finished.filter(Boolean).length,
  };
  const firstError = written.find((w) => w.firstError)?.firstError ?? finished.find(Boolean);
  if (firstError) run.firstError = firstError;
  let frames = 0;
  for (const w of written) {
    const got = arrivals[w.stream_id]!;
    frames += got.frames;
    for (let seq = 1; seq <= w.lastSeq; seq++) {
      run.chunks++;
      if ((got.count[seq] ?? 0) >= readers) run.times.push(got.last[seq]! - w.sentAt[seq]!);
      else run.missing++;
    }
  }
  run.framesPerChunk = run.chunks ? frames / readers / run.chunks : 0;
  return run;
}

/** A stream run's broken parts, for ctx.failures ('' when none). */
function streamFailures(what: string, run: StreamRun): string[] {
  return [
    run.errors ? `${what}: ${run.errors} appends or finishes failed (${run.firstError ?? ''})` : '',
    run.missing ? `${what}: ${run.missing} of ${run.chunks} chunks missed a reader` : '',
  ].filter(Boolean);
}

/** "500 chunks, 0.98 frames per reader and chunk, service CPU 23% of a core". */
const streamNote = (run: StreamRun) =>
  `${run.chunks} chunks, ${run.framesPerChunk.toFixed(2)} frames per reader and chunk, service CPU ` +
  `${((run.serviceCpu / run.ms) * 100).toFixed(0)}% of a core`;

/** Issue 51's target for runs 1–3, judged off the smoke run; a channel's at 1,000 members only. */
function streamTarget(profile: Profile, p99: number, members: number | null): Target {
  if (members !== null && members !== 1000) return { text: 'p99 < 100 ms (1,000 members)', pass: null };
  return { text: 'p99 < 100 ms', pass: profile.name === 'smoke' ? null : p99 < 100 };
}

/** The service's V8 heap in use (its /metrics) and resident size (/proc), in MiB. */
async function serviceMemory(ctx: Context): Promise<{ heap: number; rss: number }> {
  const line = (await metricsOf(ctx.service))
    .split('\n')
    .find((l) => l.startsWith('nodejs_heap_size_used_bytes'));
  if (!line) throw new Error('/metrics has no nodejs_heap_size_used_bytes');
  return { heap: Number(line.slice(line.lastIndexOf(' ') + 1)) / 1024 ** 2, rss: rssMiB(ctx.service.pid) };
}

/** Live sockets (?live=true) of these sessions, read by a listener process. */
const liveListeners = (ctx: Context, sessions: Session[]) =>
  FanOutListeners.open(
    sessions.map((s) => `${wsUrlOf(ctx, s.token)}&live=true`),
    true,
  );

async function streamWorkload(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const sizes = streamSizes(profile);
  const { settle } = sizes;
  const members = await membersOf(ctx);
  if (members.length < sizes.streams)
    throw new Error(`the stream workload needs ${sizes.streams} fan-out members (--fanout-members)`);
  const chunks = sizes.perSecond * sizes.seconds;
  const one = { chunks, perSecond: sizes.perSecond, salt: 801 };
  const pace = `${sizes.perSecond} chunks/s of ${CHUNK_CHARS} characters for ${sizes.seconds} s`;
  // Every member holds a live socket through the four runs (one listener process, started once); a
  // stream reaches those in its audience: one in runs 1 and 4, all of them in runs 2 and 3.
  const listeners = await liveListeners(ctx, members);
  log(`stream: ${listeners.count} live sockets open`);
  try {
    // Run 1: a conversation of two, the writer and one reader.
    const writer = ctx.writers[0]!;
    const reader = members[0]!;
    const conversation = [{ token: writer.token, audience: { recipients: [`uid:${reader.uid}`] } }];
    // Unmeasured first: the append path of a fresh service runs slower until compiled.
    await streamRun(ctx, listeners, conversation, { ...one, chunks: sizes.warmupChunks, salt: 800 }, 1);
    const alone = await streamRun(ctx, listeners, conversation, one, 1);
    ctx.failures.push(...streamFailures('stream to a conversation', alone));
    const two = `stream: ${pace} to a conversation of two`;
    ctx.rows.push(
      {
        workload: `${two}, chunk to the reader`,
        metric: 'p50 ms',
        skein: percentile(alone.times, 50),
        limit: null,
        limitOf: 'none',
        http: null,
        target: null,
      },
      {
        workload: `${two}, chunk to the reader`,
        metric: 'p99 ms',
        skein: percentile(alone.times, 99),
        limit: null,
        limitOf: 'none',
        http: null,
        target: streamTarget(profile, percentile(alone.times, 99), null),
        note:
          `from the append's send to the reader's stream.appended frame carrying its seq; ` +
          `${streamNote(alone)}`,
      },
      {
        workload: `${two}, the append answered`,
        metric: 'p50 ms',
        skein: percentile(alone.answered, 50),
        limit: null,
        limitOf: 'none',
        http: null,
        target: null,
      },
      {
        workload: `${two}, the append answered`,
        metric: 'p99 ms',
        skein: percentile(alone.answered, 99),
        limit: null,
        limitOf: 'none',
        http: null,
        target: null,
        note: 'POST /v1/streams/{id}/chunks, one at a time',
      },
    );

    log('stream: run 1 (a conversation) done');
    // Runs 2 and 3: the lead streams into the fan-out channel, every member reading; then again
    // while POSTING_CLIENTS clients post elsewhere.
    const channel = ctx.data.fanout!.channel_id;
    const n = members.length;
    const lead = [{ token: ctx.lead.token, audience: { channel_ids: [channel] } }];
    await streamRun(ctx, listeners, lead, { ...one, chunks: sizes.warmupChunks, salt: 802 }, n);
    const quiet = await streamRun(ctx, listeners, lead, { ...one, salt: 803 }, n);
    let loadEnded = false;
    // Twice the stream's nominal time: under load its appends, one at a time, take longer than 20 ms.
    const load = postingLoad(ctx, 2 * sizes.seconds + 3 * settle).finally(() => {
      loadEnded = true;
    });
    // The posting reaches its steady rate first.
    await sleep(settle * 1000);
    const busy = await streamRun(ctx, listeners, lead, { ...one, salt: 804 }, n);
    const endedEarly = loadEnded;
    const posting = await load;
    ctx.failures.push(...streamFailures('stream to the channel', quiet));
    ctx.failures.push(...streamFailures('stream to the channel under posting load', busy));
    if (endedEarly) ctx.failures.push('stream under posting load: the posting load ended before the stream');
    if (posting.non2xx || posting.errors)
      ctx.failures.push(
        `stream under posting load: ${posting.non2xx} non-2xx posts, ${posting.errors} errors`,
      );
    const toChannel = `stream: ${pace} to a channel of ${n} members, chunk to the last member`;
    const whilePosting = `stream: ${pace} to a channel of ${n} members while ${POSTING_CLIENTS} clients post elsewhere, chunk to the last member`;
    ctx.rows.push(
      {
        workload: toChannel,
        metric: 'p50 ms',
        skein: percentile(quiet.times, 50),
        limit: null,
        limitOf: 'none',
        http: null,
        target: null,
      },
      {
        workload: toChannel,
        metric: 'p99 ms',
        skein: percentile(quiet.times, 99),
        limit: null,
        limitOf: 'none',
        http: null,
        target: streamTarget(profile, percentile(quiet.times, 99), n),
        note: `${streamNote(quiet)}; the append answered p50 ${ms(percentile(quiet.answered, 50))} ms, p99 ${ms(percentile(quiet.answered, 99))} ms`,
      },
      {
        workload: whilePosting,
        metric: 'p50 ms',
        skein: percentile(busy.times, 50),
        limit: percentile(quiet.times, 50),
        limitOf: 'no load',
        http: null,
        target: null,
      },
      {
        workload: whilePosting,
        metric: 'p99 ms',
        skein: percentile(busy.times, 99),
        limit: percentile(quiet.times, 99),
        limitOf: 'no load',
        http: null,
        target: streamTarget(profile, percentile(busy.times, 99), n),
        note:
          `${streamNote(busy)}; meanwhile ${posting.count} posts to one recipient each ` +
          `(${posting.unitsPerSec.toFixed(0)}/s, p50 ${ms(posting.p50)} ms, p99 ${ms(posting.p99)} ms)`,
      },
    );

    log('stream: runs 2 and 3 (the channel) done');
    // Run 4: many streams at once, from as many bots, each to one member.
    const bots = await delegatedUsers(ctx, 'bench-streamer', sizes.streams, true);
    const readers = members.slice(0, sizes.streams);
    const many = bots.map((bot, k) => ({
      token: bot.token,
      audience: { recipients: [`uid:${readers[k]!.uid}`] },
    }));
    await sleep(settle * 1000);
    const before = await serviceMemory(ctx);
    let during = before;
    const perStream = sizes.streamsPerSecond * sizes.streamsSeconds;
    const crowd = await streamRun(
      ctx,
      listeners,
      many,
      { chunks: perStream, perSecond: sizes.streamsPerSecond, salt: 805 },
      1,
      async () => {
        await sleep(settle * 1000);
        during = await serviceMemory(ctx);
      },
    );
    ctx.failures.push(...streamFailures(`${sizes.streams} streams at once`, crowd));
    const k = sizes.streams;
    const crowdWorkload = `stream: ${k} streams at once, ${sizes.streamsPerSecond} chunks/s each for ${sizes.streamsSeconds} s, chunk to the reader`;
    const kib = (mib: number) => (mib * 1024) / k;
    ctx.rows.push(
      {
        workload: crowdWorkload,
        metric: 'p50 ms',
        skein: percentile(crowd.times, 50),
        limit: null,
        limitOf: 'none',
        http: null,
        target: null,
      },
      {
        workload: crowdWorkload,
        metric: 'p99 ms',
        skein: percentile(crowd.times, 99),
        limit: null,
        limitOf: 'none',
        http: null,
        target: null,
        note: `${streamNote(crowd)}; the append answered p99 ${ms(percentile(crowd.answered, 99))} ms`,
      },
      {
        workload: `stream: service heap growth per open stream, an upper bound (${k} streams of ${perStream * CHUNK_CHARS} characters)`,
        metric: 'KiB',
        skein: kib(during.heap - before.heap),
        limit: null,
        limitOf: 'none',
        http: null,
        target: null,
        note:
          `V8 heap in use (nodejs_heap_size_used_bytes) ${before.heap.toFixed(1)} MiB before the streams opened, ` +
          `${during.heap.toFixed(1)} MiB ${settle} s after their last chunk, before they finished; RSS ` +
          `${before.rss.toFixed(0)} → ${during.rss.toFixed(0)} MiB (${kib(during.rss - before.rss).toFixed(1)} KiB ` +
          "per stream). The requests' uncollected garbage counts too (the bench cannot make the service " +
          'collect): an upper bound, noisy at this size. No Redis: the streams are held in the heap',
      },
    );
  } finally {
    await listeners.close();
  }
}

/**
 * Sizes of the typing workload: typing accounts (at most the fan-out members), the size of the
 * channels half of them type in, seconds of posting per part (phases in turns, see inTurns), the
 * seconds of typing alone whose Neo4j writes are counted, and the seconds given to the first signals
 * (which judge each target's audience) before the posting is measured.
 */
const typingSizes = (profile: Profile) =>
  profile.name === 'smoke'
    ? { accounts: 20, channelSize: 10, seconds: 1, aloneSeconds: 1, settle: 0.3 }
    : { accounts: 1000, channelSize: 100, seconds: 6, aloneSeconds: 5, settle: 1 };

/** A posting phase of the typing workload: the posts and their cost; the signals sent meanwhile, if any. */
interface TypingPhase {
  phase: [HttpMeasured, Cost];
  signals: Paced | null;
}

/** Messages the lead posts in each typing channel, which the typists there answer. */
const TYPING_PARENTS = 5;

async function typingWorkload(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const sizes = typingSizes(profile);
  const members = await membersOf(ctx);
  // An even half in conversations of two (pairs of typists, each typing to the other).
  const half = 2 * Math.floor(Math.min(sizes.accounts, members.length) / 4);
  const typists = members.slice(0, 2 * half);
  const pairs = typists.slice(0, half);
  // The other half in threads of channels of channelSize members: replies to the lead's posts there.
  const inChannels = typists.slice(half);
  const parentsOf = new Map<string, string[]>();
  for (let from = 0; from < inChannels.length; from += sizes.channelSize) {
    const group = inChannels.slice(from, from + sizes.channelSize);
    const channel = await ctx.api.call<{ id: string }>('POST', '/v1/channels', {
      token: ctx.lead.token,
      body: { display_name: `bench typing ${ctx.run} ${from / sizes.channelSize}` },
    });
    await mapPool(group, 8, (member) =>
      ctx.api.call('POST', `/v1/channels/${channel.id}/members`, {
        token: ctx.lead.token,
        body: { uid: member.uid },
      }),
    );
    const parents: string[] = [];
    for (let i = 0; i < TYPING_PARENTS; i++) {
      const [message] = await ctx.api.post(ctx.lead.token, {
        content: contentOf(profile.seed + 901, from + i),
        channel_ids: [channel.id],
      });
      parents.push(message!.id);
    }
    for (const member of group) parentsOf.set(member.uid, parents);
  }
  const targetOf = (k: number): Record<string, unknown> =>
    k < half
      ? { recipients: [`uid:${pairs[k ^ 1]!.uid}`] }
      : { message_id: parentsOf.get(typists[k]!.uid)![k % TYPING_PARENTS] };
  const n = typists.length;
  // Every typist holds a live socket: each is in the audience of others (its partner, its channel).
  // Signals go over it as {"type": "typing"} frames, as the SDKs send them (no HTTP request each).
  const listeners = await liveListeners(ctx, typists);
  /** Every typist at 1 signal/s until stopped (once or again); then each says stop. */
  const typing = () => {
    const started = listeners.startTyping(typists.map((_, k) => targetOf(k)));
    let stopping: Promise<Paced> | null = null;
    return { stop: () => (stopping ??= started.then(() => listeners.stopTyping(true))) };
  };
  try {
    // Typing alone: the Neo4j writes it causes (none expected), and its reads (judging audiences).
    const [alone, aloneCost] = await costOf(ctx, async () => {
      const running = typing();
      await sleep(sizes.aloneSeconds * 1000);
      return running.stop();
    });
    await sleep(500);
    // Unmeasured posting first (a fresh service's first posts take seconds, its post path runs slower
    // until compiled); the phases' own posting then starts at once, so that their Neo4j writes are
    // their posts'.
    await postingLoad(ctx, sizes.seconds, 9 * PART_STRIDE);
    const posting = (part: number) => postingLoad(ctx, sizes.seconds, part * PART_STRIDE, 0);
    const quiet = (part: number) => costOf(ctx, () => posting(part));
    const typed = async (part: number): Promise<TypingPhase> => {
      const running = typing();
      // Past the first signals, which judge each target's audience.
      await sleep(sizes.settle * 1000);
      const phase = await costOf(ctx, () => posting(part)).finally(() => running.stop());
      const signals = await running.stop();
      await sleep(500);
      return { phase, signals };
    };
    const loadBefore = loadNow();
    const turns = await inTurns(
      profile,
      async (part): Promise<TypingPhase> => ({ phase: await quiet(part), signals: null }),
      typed,
    );
    const loadAfter = loadNow();
    const posts = (phases: TypingPhase[]) => mergeHttp(phases.map((p) => p.phase[0]));
    const costs = (phases: TypingPhase[]) => totalCost(phases.map((p) => p.phase[1]));
    const [without, withTyping] = [posts(turns.x), posts(turns.y)];
    const [withoutCost, typingCost] = [costs(turns.x), costs(turns.y)];
    const signals = [alone, ...turns.y.map((p) => p.signals!)];
    const signalErrors = signals.reduce((sum, s) => sum + s.errors, 0);
    if (signalErrors)
      ctx.failures.push(
        `typing: ${signalErrors} signals failed (${signals.find((s) => s.firstError)?.firstError})`,
      );
    for (const measured of [without, withTyping]) {
      if (measured.non2xx || measured.errors)
        ctx.failures.push(`typing: ${measured.non2xx} non-2xx posts, ${measured.errors} errors`);
      if (measured.count === 0) ctx.failures.push('typing: no post was answered in a phase');
    }
    const answered = signals.flatMap((s) => s.latencies);
    const seconds = signals.reduce((sum, s) => sum + s.seconds, 0);
    const skipped = signals.reduce((sum, s) => sum + s.skipped, 0);
    // Posts cut off when a phase ends (at most one per client) wrote but are not counted: "about".
    const perPost = (cost: Cost, measured: HttpMeasured) =>
      measured.count ? (cost.writes / measured.count).toFixed(2) : '—';
    const who =
      `${n} accounts type at 1 signal/s (${half} in conversations of two, ${n - half} replying in ` +
      `channels of ${sizes.channelSize} members)`;
    ctx.rows.push(
      {
        workload: `typing: ${POSTING_CLIENTS} clients post while ${who}`,
        metric: 'msgs/s',
        skein: withTyping.unitsPerSec,
        limit: without.unitsPerSec,
        limitOf: 'no typing',
        http: null,
        target: ampTarget(
          profile,
          '≥ 95% of no typing',
          withTyping.unitsPerSec >= 0.95 * without.unitsPerSec,
        ),
        note:
          `posts to one recipient each, ${without.count} and ${withTyping.count} answered (p99 ${ms(without.p99)} ` +
          `and ${ms(withTyping.p99)} ms), phases in turns ${profile.name === 'smoke' ? 'without, with' : 'without, with, with, without'} ` +
          `of ${sizes.seconds} s; ${answered.length} signals answered (${(answered.length / seconds).toFixed(0)}/s, ` +
          `p50 ${ms(percentile(answered, 50))} ms, p99 ${ms(percentile(answered, 99))} ms, ${skipped} not sent while ` +
          `the socket's last was unanswered); signals are {"type": "typing"} frames on each typist's live socket; ` +
          `Neo4j writes per post answered about ` +
          `${perPost(withoutCost, without)} without typing, ${perPost(typingCost, withTyping)} with; ` +
          `Neo4j reads/s ${readsPerSec(withoutCost).toFixed(0)} without, ${readsPerSec(typingCost).toFixed(0)} with; ` +
          `${cpuChange(ctx, withoutCost, typingCost)}; load average ${loadBefore} before, ${loadAfter} after`,
      },
      {
        workload: `typing: Neo4j writes while ${who} for ${sizes.aloneSeconds} s, nothing else`,
        metric: 'writes',
        skein: aloneCost.writes,
        limit: null,
        limitOf: 'none',
        http: null,
        target: { text: '0', pass: aloneCost.writes === 0 },
        note:
          `the service's Neo4j write transactions (its /metrics) over the signals and the stops that end them; ` +
          `${alone.latencies.length} signals answered; ${readsPerSec(aloneCost).toFixed(0)} Neo4j reads/s ` +
          `(each target's audience, judged once per 15 s); service CPU ` +
          `${((aloneCost.service / aloneCost.ms) * 100).toFixed(0)}% of a core`,
      },
    );
  } finally {
    await listeners.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Chat completions (issue 54, decision 033): bench/lib/completions.ts

async function completionsWorkload(ctx: Context): Promise<void> {
  const smoke = ctx.profile.name === 'smoke';
  const botTag = `cbot-${ctx.run}`;
  const botUid = await ctx.api.createManaged(ctx.lead.token, botTag, true);
  const result = await measureCompletions({
    api: ctx.api,
    serviceUrl: ctx.service.url,
    servicePid: ctx.service.pid,
    heapMiB: async () => (await serviceMemory(ctx)).heap,
    askerToken: ctx.lead.token,
    botToken: await ctx.api.delegate(ctx.lead.token, botUid),
    botTag,
    samples: smoke ? 10 : 200,
    held: smoke ? 10 : 100,
  });
  ctx.failures.push(...result.failures.map((failure) => `completions: ${failure}`));
  const added = completionP50(result.completion) - completionP50(result.socket);
  const exchange = `completions: one exchange with an echo bot, ${result.socket.length} of each, alternated`;
  ctx.rows.push(
    {
      workload: `${exchange}, POST /v1/chat/completions against a post + the reply on a socket`,
      metric: 'p50 ms',
      skein: completionP50(result.completion),
      limit: completionP50(result.socket),
      limitOf: 'post + socket',
      http: null,
      target: { text: 'adds < 5 ms at p50', pass: smoke ? null : added < 5 },
      note: `added ${added.toFixed(1)} ms at p50; load average ${os.loadavg()[0]!.toFixed(1)}`,
    },
    {
      workload: `${exchange}, p99`,
      metric: 'p99 ms',
      skein: completionP99(result.completion),
      limit: completionP99(result.socket),
      limitOf: 'post + socket',
      http: null,
      target: null,
    },
    {
      workload: `completions: service heap per held-open completion (${result.held.count} waiting at once)`,
      metric: 'KiB',
      skein: ((result.held.heapDuring - result.held.heapBefore) * 1024) / result.held.count,
      limit: null,
      limitOf: 'none',
      http: null,
      target: null,
      note:
        `V8 heap in use ${result.held.heapBefore.toFixed(1)} MiB before, ${result.held.heapDuring.toFixed(1)} MiB ` +
        `while they waited; RSS ${result.held.rssBefore.toFixed(0)} → ${result.held.rssDuring.toFixed(0)} MiB; ` +
        `an upper bound (uncollected garbage of the requests counts too)`,
    },
    {
      workload: `completions: service CPU per second while ${result.held.count} completions wait (no polling)`,
      metric: 'CPU ms',
      skein: result.held.cpuMsPerSecond,
      limit: null,
      limitOf: 'none',
      http: null,
      target: {
        text: 'about none: waiting is event-driven',
        pass: smoke ? null : result.held.cpuMsPerSecond < 50,
      },
    },
  );
}

// ---------------------------------------------------------------------------------------------
// A cold start (issue 52, item 5; decision 035): the first minute after a restart against the fifth

/**
 * Seconds of each measured phase and, from readiness, when the second one starts (it ends at the
 * fifth minute). The smoke run only checks that the workload runs, in CI, and restarts the service
 * alone, with one second of warm-up: restarting Neo4j too made the workload take 37 s at load 4
 * (2026-12-02: Neo4j's stop 2 s and start 10 s, then the warm-up's first round on the fresh JVM 16 s)
 * and 90 s at load 8, where the service alone takes about 15 s. Every other profile restarts both.
 */
const coldSizes = (profile: Profile) =>
  profile.name === 'smoke'
    ? { phaseSeconds: 2, warmAtSeconds: 5, warmUpSeconds: '1' as string | null, restartNeo4j: false }
    : { phaseSeconds: 60, warmAtSeconds: 240, warmUpSeconds: null, restartNeo4j: true };

/** Clients reading the viewer's inbox during the cold phases, each pausing between pages as a reader would. */
const PAGE_READERS = 2;
const PAGE_READ_PAUSE_MS = 50;
/**
 * The pages are read at skip 0 … PAGE_SKIPS − 1 in a shuffled order: the view cache keeps an answer
 * 5 s by its exact URL, and a URL comes back only after PAGE_SKIPS reads (over 9 s at the readers'
 * pace), so every page read runs the query path, whose first runs are what a cold start costs.
 */
const PAGE_SKIPS = 300;

interface ColdPhase {
  posting: HttpMeasured;
  pages: Measured;
  cost: Cost;
  /** The load average when the phase began. */
  load: string;
}

/** PAGE_READERS clients read inbox pages (limit 15) as the viewer for `seconds`, the i-th at skips[i]. */
async function readInboxPages(
  ctx: Context,
  seconds: number,
  skips: readonly number[],
  startAt: number,
): Promise<Measured> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let i = startAt;
  const began = performance.now();
  const deadline = began + seconds * 1000;
  await Promise.all(
    Array.from({ length: PAGE_READERS }, async () => {
      while (performance.now() < deadline) {
        const skip = skips[i++ % skips.length]!;
        const t0 = performance.now();
        const res = await fetch(`${ctx.service.url}/v1/messages/inbox?skip=${skip}&limit=15`, {
          headers: bearer(ctx.viewer),
        });
        const text = await res.text();
        if (res.status === 200) latencies.push(performance.now() - t0);
        else {
          errors++;
          firstError ??= `${res.status}: ${text.slice(0, 200)}`;
        }
        await sleep(PAGE_READ_PAUSE_MS);
      }
    }),
  );
  const measured = summarize(latencies, latencies.length, errors, (performance.now() - began) / 1000);
  return firstError === undefined ? measured : { ...measured, firstError };
}

/** POSTING_CLIENTS clients post (no unmeasured posts first) while PAGE_READERS read pages, for `seconds`. */
async function coldLoad(ctx: Context, seconds: number, part: number, skips: readonly number[]) {
  const [posting, pages] = await Promise.all([
    postingLoad(ctx, Math.max(1, Math.round(seconds)), part * PART_STRIDE, 0),
    readInboxPages(ctx, seconds, skips, part * PART_STRIDE),
  ]);
  if (posting.non2xx || posting.errors)
    ctx.failures.push(`cold: ${posting.non2xx} non-2xx posts, ${posting.errors} errors (part ${part})`);
  if (pages.errors)
    ctx.failures.push(`cold: ${pages.errors} page reads failed (${pages.firstError ?? ''}, part ${part})`);
  // A smoke phase of 2 s on a loaded machine may end before any post is answered (autocannon drops
  // the posts in flight): a broken service shows in the errors above and in the timed posts.
  if (ctx.profile.name !== 'smoke' && (posting.count === 0 || pages.count === 0))
    ctx.failures.push(`cold: no post or no page read was answered (part ${part})`);
  return { posting, pages };
}

async function coldPhase(
  ctx: Context,
  seconds: number,
  part: number,
  skips: readonly number[],
): Promise<ColdPhase> {
  const load = loadNow();
  const [{ posting, pages }, cost] = await costOf(ctx, () => coldLoad(ctx, seconds, part, skips));
  return { posting, pages, cost, load };
}

/** One post by the first writer to one recipient, timed from sending it to its whole answer. */
async function timedPost(ctx: Context, i: number): Promise<number> {
  const t0 = performance.now();
  await probe(ctx, 'POST', {
    path: '/v1/messages',
    headers: bearer(ctx.writers[0]!),
    body: JSON.stringify({
      content: contentOf(ctx.profile.seed + 601, i),
      recipients: [`uid:${recipientsFor(ctx, 9_000_000 + i)[0]!}`],
    }),
  });
  return performance.now() - t0;
}

/** The warm-up's report from the service's log (`"warmed up"` with its rounds and ms, at info). */
function warmUpOf(output: string): string {
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"warmed up"') && !line.includes('"msg":"the warm-up failed')) continue;
    try {
      const record = JSON.parse(line) as { msg?: string; rounds?: number; ms?: number; err?: unknown };
      if (record.msg === 'warmed up')
        return `${((record.ms ?? 0) / 1000).toFixed(1)} s of it the warm-up (${record.rounds} rounds)`;
      return `the warm-up failed after ${record.rounds} rounds: ${String(record.err).slice(0, 200)}`;
    } catch {
      // a line cut by the output's tail
    }
  }
  return output.includes('"msg":"Skein is listening')
    ? 'no warm-up: SKEIN_WARMUP_SECONDS=0'
    : 'no "warmed up" line in the service log';
}

/**
 * Restarts the embedded Neo4j (same store and port) and the service (a fresh port and data folder;
 * ctx.service and ctx.api follow it), then: one post timed alone as soon as /readyz answers; the
 * first phase (16 clients post while 2 read inbox pages); the same load, unmeasured, until four
 * minutes after readiness, since a restarted service is a busy one; the same phase again, ending at
 * the fifth minute; one post alone again. Neo4j's page cache and JIT and the service's are cold alike.
 */
async function coldWorkload(ctx: Context): Promise<void> {
  const { profile } = ctx;
  const smoke = profile.name === 'smoke';
  const sizes = coldSizes(profile);
  const loadBefore = loadNow();
  // The service first: it would meet a Neo4j that went away under its requests.
  await ctx.service.stop();
  let neo4jRestart = sizes.restartNeo4j
    ? 'not restarted (NEO4J_URI: a server of its own)'
    : 'not restarted in the smoke run';
  if (ctx.restartNeo4j && sizes.restartNeo4j) {
    const restarted = await ctx.restartNeo4j();
    ctx.neo4jPid = restarted.pid;
    neo4jRestart =
      `stopped in ${(restarted.stopMs / 1000).toFixed(1)} s and started again on its store in ` +
      `${(restarted.startMs / 1000).toFixed(1)} s`;
  }
  const port = await freePort();
  const began = performance.now();
  const service = await startService({
    ...ctx.serviceEnv(port, path.join(ctx.tmp, 'cold-service')),
    // The warm-up reports its time at info only. Every request is then logged too, in both phases, as
    // a deployment's default level (info) does.
    LOG_LEVEL: 'info',
    ...(sizes.warmUpSeconds === null ? {} : { SKEIN_WARMUP_SECONDS: sizes.warmUpSeconds }),
  });
  const ready = performance.now();
  ctx.service = service;
  ctx.api = new Api(service.url);
  const output = service.output();
  const compiled = output.includes('Compiling src/ to dist/') ? '; compiling src/ to dist/ included' : '';
  const started = `ready after ${((ready - began) / 1000).toFixed(1)} s from the spawn (${warmUpOf(output)}${compiled})`;
  log(`cold: service ${started}; Neo4j ${neo4jRestart}`);

  const firstLoad = os.loadavg()[0]!;
  const firstPost = await timedPost(ctx, 0);
  const skips = new Prng(profile.seed + 52).shuffle(Array.from({ length: PAGE_SKIPS }, (_, k) => k));
  const first = await coldPhase(ctx, sizes.phaseSeconds, 0, skips);
  const gap = sizes.warmAtSeconds - (performance.now() - ready) / 1000;
  log(`cold: first phase done; the same load unmeasured for ${Math.max(0, gap).toFixed(0)} s`);
  const between = gap >= 1 ? await coldLoad(ctx, gap, 1, skips) : null;
  const warm = await coldPhase(ctx, sizes.phaseSeconds, 2, skips);
  // The posts autocannon dropped when it stopped finish first.
  await sleep(1000);
  const warmLoad = os.loadavg()[0]!;
  const warmPost = await timedPost(ctx, 1);
  const loadAfter = loadNow();

  const s = (value: number) => (value / 1000).toFixed(0);
  const at = (phase: ColdPhase) => `${s(phase.cost.ms)} s`;
  const when =
    `first phase from readiness (${at(first)}, load ${first.load}), second from ` +
    `${sizes.warmAtSeconds} s after it (${at(warm)}, load ${warm.load}); between them the same load ran ` +
    `unmeasured (${between?.posting.count ?? 0} posts)`;
  const end = sizes.warmAtSeconds + sizes.phaseSeconds;
  const phases = `first ${sizes.phaseSeconds} s after start against the same at ${end >= 120 ? `${end / 60} min` : `${end} s`}`;
  const restarted = ctx.restartNeo4j && sizes.restartNeo4j ? 'Neo4j and the service' : 'the service';
  const workload = `cold: after a restart of ${restarted}, ${POSTING_CLIENTS} clients post while ${PAGE_READERS} read inbox pages`;
  const both = (pick: (phase: ColdPhase) => Measured, what: string) =>
    `${what}: ${pick(first).count} and ${pick(warm).count} answered, p50 ${ms(pick(first).p50)} and ` +
    `${ms(pick(warm).p50)} ms, p99 ${ms(pick(first).p99)} and ${ms(pick(warm).p99)} ms`;
  const judged = (pass: boolean) => (smoke ? null : pass);
  ctx.rows.push(
    {
      workload: 'cold: first post after start',
      metric: 'ms',
      skein: firstPost,
      limit: warmPost,
      limitOf: 'at 5 min',
      http: null,
      target: {
        text: '< 500 ms at load ≤ 4',
        pass: smoke || firstLoad > 4 ? null : firstPost < 500,
      },
      note:
        `one POST /v1/messages (one recipient) by a writer as soon as /readyz answered 200, before any other ` +
        `request; ${firstLoad > 4 ? `not judged, load ${firstLoad.toFixed(1)}` : `load ${firstLoad.toFixed(1)}`}; ` +
        `the service ${started}; Neo4j ${neo4jRestart}; limit: the same post alone after the fifth minute's ` +
        `phase (load ${warmLoad.toFixed(1)})`,
    },
    {
      workload: `${workload}: posts, ${phases}`,
      metric: 'msgs/s',
      skein: first.posting.unitsPerSec,
      limit: warm.posting.unitsPerSec,
      limitOf: 'at 5 min',
      http: null,
      target: {
        text: '≥ 70% of at 5 min',
        pass: judged(first.posting.unitsPerSec >= 0.7 * warm.posting.unitsPerSec),
      },
      note:
        `posts to one recipient each, as the fan-out's posting clients, none unmeasured; ${when}; ` +
        `${cpuChange(ctx, first.cost, warm.cost)}; Neo4j reads/s ${readsPerSec(first.cost).toFixed(0)} → ` +
        `${readsPerSec(warm.cost).toFixed(0)}; the service logs at info (each request); load average ` +
        `${loadBefore} before the restarts, ${loadAfter} after`,
    },
    {
      workload: `${workload}: post p99, ${phases}`,
      metric: 'p99 ms',
      skein: first.posting.p99,
      limit: warm.posting.p99,
      limitOf: 'at 5 min',
      http: null,
      target: { text: '≤ 2× at 5 min', pass: judged(first.posting.p99 <= 2 * warm.posting.p99) },
      note: both((phase) => phase.posting, 'posts'),
    },
    {
      workload: `${workload}: page read p99, ${phases}`,
      metric: 'p99 ms',
      skein: first.pages.p99,
      limit: warm.pages.p99,
      limitOf: 'at 5 min',
      http: null,
      target: { text: '≤ 2× at 5 min', pass: judged(first.pages.p99 <= 2 * warm.pages.p99) },
      note:
        `GET /v1/messages/inbox?skip=N&limit=15 as the viewer, N in 0–${PAGE_SKIPS - 1} shuffled (the view ` +
        `cache never holds the page asked), ${PAGE_READERS} readers pausing ${PAGE_READ_PAUSE_MS} ms between ` +
        `pages; ${both((phase) => phase.pages, 'pages')}`,
    },
  );
}

const WORKLOAD_RUNNERS: [Workload, (ctx: Context) => Promise<void>][] = [
  ['post', postWorkloads],
  ['read', readWorkload],
  ['views', viewWorkloads],
  ['traverse', traverseWorkloads],
  ['context', contextWorkloads],
  ['search', searchWorkloads],
  ['fanout', fanOutWorkload],
  ['sockets', idleSocketsWorkload],
  ['webhooks', webhookWorkload],
  ['scaleout', scaleOutWorkload],
  ['amplification', amplificationWorkload],
  ['stream', streamWorkload],
  ['typing', typingWorkload],
  ['completions', completionsWorkload],
  // Last: it restarts Neo4j and the service.
  ['cold', coldWorkload],
];

// ---------------------------------------------------------------------------------------------
// The run

function datasetKey(profile: Profile): string {
  return JSON.stringify({
    messages: profile.messages,
    users: profile.users,
    channels: profile.channels,
    seed: profile.seed,
    viewerWritesIn: profile.viewerWritesIn,
    viewerReceivesIn: profile.viewerReceivesIn,
    bigThread: profile.bigThread,
    bigThreadSpine: profile.bigThreadSpine,
    fanoutMembers: profile.fanoutMembers,
  });
}

/** Seeds the store, or reuses one an earlier run seeded with the same sizes (external Neo4j only). */
async function seedStore(db: Database, profile: Profile, data: Dataset): Promise<'seeded' | 'reused'> {
  const key = datasetKey(profile);
  const [marker] = await db.runText('OPTIONAL MATCH (b:BenchDataset) RETURN b.key AS key');
  const found = marker?.key as string | null | undefined;
  if (found === key) return 'reused';
  if (found) throw new Error(`the database holds another bench store (${found}); use an empty one`);
  const [viewer] = await db.runText('MATCH (u:User {tag_folded: $tag}) RETURN count(u) AS n', {
    tag: VIEWER_TAG,
  });
  if (Number(viewer?.n ?? 0) > 0)
    throw new Error('the database already holds a bench-viewer; use an empty one');
  let lastLabel = '';
  let lastPrint = 0;
  const began = Date.now();
  await writeDataset(db, data, ({ label, done, total, elapsedMs }) => {
    const now = Date.now();
    if (done === total || now - lastPrint > 10_000 || label !== lastLabel) {
      const rate = elapsedMs > 0 ? (done / elapsedMs) * 1000 : 0;
      log(
        `seed ${label}: ${done}/${total} (${rate.toFixed(0)} rows/s, ${((now - began) / 1000).toFixed(0)} s in all)`,
      );
      lastPrint = now;
      lastLabel = label;
    }
  });
  await db.runText('CREATE (:BenchDataset {key: $key, written_at: datetime()})', { key });
  // Let the indexes catch up with the seeding, so that the first workload does not pay for them.
  await db.runText('CALL db.awaitIndexes(600)');
  return 'seeded';
}

/** Threads the viewer wrote in or received a message of (channels aside). */
function viewerThreadCount(data: Dataset): number {
  const rootOf = new Map(data.messages.map((m) => [m.id, m.root_id]));
  const roots = new Set(data.messages.filter((m) => m.author_uid === data.viewer.uid).map((m) => m.root_id));
  for (const r of data.receivers) if (r.uid === data.viewer.uid) roots.add(rootOf.get(r.message_id)!);
  return roots.size;
}

async function main(): Promise<void> {
  const profile = parseProfile(process.argv.slice(2));
  profile.bigThreadSpine = Math.min(profile.bigThreadSpine, profile.bigThread);
  const startedAt = new Date();
  const began = performance.now();
  const timings: Record<string, number> = {};
  const time = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      timings[label] = (performance.now() - t0) / 1000;
    }
  };
  const cleanups: (() => Promise<void>)[] = [];
  const quiet = createLogger('warn');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'skein-bench-'));
  cleanups.push(() => {
    if (!profile.keep) rmSync(tmp, { recursive: true, force: true });
    else log(`kept ${tmp}`);
    return Promise.resolve();
  });
  const loadStart = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  log(
    `profile ${profile.name}: ${profile.messages} messages, ${profile.users} users, ${profile.channels} channels; load ${loadStart}`,
  );

  try {
    let target: Neo4jTarget;
    let neo4jPid: number | null = null;
    let restartEmbedded: (() => Promise<Neo4jRestart>) | null = null;
    if (process.env.NEO4J_URI) {
      target = {
        uri: process.env.NEO4J_URI,
        user: process.env.NEO4J_USER ?? 'neo4j',
        password: process.env.NEO4J_PASSWORD ?? '',
        database: process.env.NEO4J_DATABASE,
      };
    } else {
      const options: EmbeddedOptions = {
        dataDir: path.join(tmp, 'neo4j-data'),
        port: await freePort(),
        heap: profile.neo4jHeap,
        pageCache: profile.neo4jPageCache,
        // As the service's would (SKEIN_NEO4J_NICE, decision 029), so variants can be measured.
        ...(process.env.SKEIN_NEO4J_NICE ? { nice: Number(process.env.SKEIN_NEO4J_NICE) } : {}),
        log: quiet,
      };
      let embedded = await time('neo4j start', () => startEmbeddedNeo4j(options));
      cleanups.push(() => embedded.stop());
      target = embedded.target;
      neo4jPid = childPids(process.pid, 'java')[0] ?? null;
      // The same store, port and password (kept beside the store): the target stays the same.
      restartEmbedded = async () => {
        const t0 = performance.now();
        await embedded.stop();
        const t1 = performance.now();
        embedded = await startEmbeddedNeo4j(options);
        const pid = childPids(process.pid, 'java')[0] ?? null;
        return { pid, stopMs: t1 - t0, startMs: performance.now() - t1 };
      };
    }
    const db = Database.connect(target);
    cleanups.push(() => db.close());
    await db.verify();
    await applySchema(db, quiet);
    const [component] = await db.runText(
      'CALL dbms.components() YIELD versions, edition RETURN versions[0] AS v, edition',
    );
    const neo4jVersion = `${String(component?.v)} ${String(component?.edition)}`;

    const data = generateDataset({
      messages: profile.messages,
      users: profile.users,
      channels: profile.channels,
      seed: profile.seed,
      viewerWritesIn: profile.viewerWritesIn,
      viewerReceivesIn: profile.viewerReceivesIn,
      channelMembers: 20,
      ownThreads: [{ size: profile.bigThread, spine: profile.bigThreadSpine, stitches: 0 }],
      passwordHash: await hashPassword(SEEDED_PASSWORD, BCRYPT_COST),
      fanoutMembers: profile.fanoutMembers,
    });
    const seeded = await time('seed', () => seedStore(db, profile, data));
    log(`store ${seeded} in ${timings.seed!.toFixed(1)} s`);
    if (profile.seedOnly) return;

    const serviceEnv = (port: number, dataDir: string): Record<string, string> => ({
      PORT: String(port),
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      SKEIN_DATA_DIR: dataDir,
      SKEIN_RATE_LIMIT_AUTH_PER_MIN: '1000000',
      SKEIN_RATE_LIMIT_POSTS_PER_MIN: '1000000',
      SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '1000000',
      // Every bench socket comes from 127.0.0.1: the per-address cap would stop the fan-out at 200.
      SKEIN_WS_MAX_SOCKETS_PER_ADDRESS: '100000',
      SKEIN_VERIFICATION_REQUESTS_PER_HOUR: '100000',
      // The seeded fan-out members are the lead's managed users (1,000 on the small profile): under
      // the default cap of 50 the lead could create no writer or bot.
      SKEIN_MAX_MANAGED_USERS: '100000',
      // The stream workload appends 50 chunks a second as one account (the default allows 3,000 a
      // minute) and opens 100 streams at once; the typing workload's 1,000 accounts renew each second
      // (SKEIN_RATE_LIMIT_ACTIONS_PER_MIN above).
      SKEIN_RATE_LIMIT_STREAM_APPENDS_PER_MIN: '1000000',
      SKEIN_MAX_OPEN_STREAMS_PER_USER: '1000',
      // The completions workload holds 100 completions of one account open at once.
      SKEIN_MAX_OPEN_COMPLETIONS_PER_USER: '1000',
      // The amplification workload reads the service's Neo4j read transactions from /metrics; the
      // typing workload its write transactions, the stream workload its heap.
      SKEIN_METRICS_TOKEN: METRICS_TOKEN,
      SKEIN_ADMIN_TAG: ADMIN_TAG,
      SKEIN_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true',
      LOG_LEVEL: 'warn',
    });
    const service = await time('service start', async () =>
      startService(serviceEnv(await freePort(), path.join(tmp, 'service'))),
    );
    // The cold workload replaces the service (ctx.service): the one running at the end is stopped.
    let running: { service: Child } = { service };
    cleanups.push(() => running.service.stop());
    const bare = await startBareServer();
    cleanups.push(() => bare.stop());

    // Sessions through the real API.
    const api = new Api(service.url);
    const run = randomBytes(2).toString('hex');
    const setup = await time('sessions', async () => {
      const admin = await api.login(ADMIN_TAG, ADMIN_PASSWORD);
      const leadUid = data.fanout!.lead.uid;
      await api.grant(admin, leadUid, [
        'messages.read',
        'messages.write',
        'realtime.connect',
        'channels.create',
      ]);
      // Sessions freeze their permissions when minted: the lead logs in after the grant.
      const leadToken = await api.login(LEAD_TAG, SEEDED_PASSWORD);
      const viewerToken = await api.login(VIEWER_TAG, SEEDED_PASSWORD);
      return {
        lead: { uid: leadUid, token: leadToken, sessionId: sessionIdOf(leadToken) },
        viewer: { uid: data.viewer.uid, token: viewerToken, sessionId: sessionIdOf(viewerToken) },
      };
    });
    const restart = restartEmbedded;
    const ctx: Context = {
      profile,
      data,
      api,
      service,
      serviceEnv,
      neo4jPid,
      restartNeo4j:
        restart &&
        (async () => {
          const restarted = await restart();
          // The driver's pooled connections died with the old JVM; it must open new ones by itself.
          await db.verify();
          await db.read('identity/find-sessions', { session_ids: [setup.viewer.sessionId] });
          return restarted;
        }),
      tmp,
      bare,
      limits: new DbLimits(db, service.url),
      run,
      lead: setup.lead,
      viewer: setup.viewer,
      writers: [],
      members: [],
      rows: [],
      notes: [],
      failures: [],
    };
    running = ctx;
    ctx.writers = await delegatedUsers(ctx, 'bench-w', profile.connections);

    for (const [name, runner] of WORKLOAD_RUNNERS) {
      if (!profile.only.has(name)) continue;
      log(`workload ${name}`);
      try {
        await time(name, () => runner(ctx));
      } catch (error) {
        const message = (error as Error).message.split('\n')[0]!.slice(0, 300);
        log(`workload ${name} failed: ${message}`);
        ctx.failures.push(`${name}: ${message}`);
        ctx.rows.push({
          workload: name,
          metric: 'p99 ms',
          skein: null,
          limit: null,
          limitOf: 'none',
          http: null,
          target: null,
          note: `failed: ${message}`,
        });
      }
    }

    const loadEnd = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    const cpus = os.cpus();
    const thread = data.ownThreads[0]!;
    const report = {
      profile: profile.name,
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      seconds: (performance.now() - began) / 1000,
      machine: {
        cpu_model: cpus[0]?.model ?? 'unknown',
        cpus: cpus.length,
        memory_gib: (os.totalmem() / 1024 ** 3).toFixed(0),
        node: process.version,
        neo4j: neo4jVersion,
        neo4j_memory: process.env.NEO4J_URI
          ? 'external'
          : `heap ${profile.neo4jHeap}, page cache ${profile.neo4jPageCache}`,
        load_start: loadStart,
        load_end: loadEnd,
      },
      sizes: {
        messages: data.messages.length,
        users: data.users.length,
        channels: data.channels.length,
        receivers: data.receivers.length,
        inclusions: data.inclusions.length,
        viewer_threads: viewerThreadCount(data),
        big_thread: `${thread.ids.length} messages, spine ${thread.spine.length}`,
        fanout_channel: `${data.fanout?.members.length ?? 0} members`,
        store: seeded,
      },
      timings,
      rows: ctx.rows,
      notes: [
        `Seconds per measurement: ${profile.duration} (bare server ${bareSeconds(profile)}); throughput workloads ` +
          `use ${profile.connections} connections (100-message posts ${profile.batchConnections}), latency workloads one.`,
        `The service, Neo4j, the bare server and this load generator share the machine's ${cpus.length} cores.`,
        ...(profile.name === 'smoke'
          ? [
              'Smoke run: it checks that every workload runs; its measurements are too short to judge, and the ' +
                'bare HTTP column is measured once per method and connection count.',
            ]
          : []),
        ...ctx.notes,
        ...ctx.failures.map((f) => `Failure: ${f}`),
      ],
    };
    const files = await writeReport(report, profile.outDir);
    console.log(`\n${textTable(ctx.rows)}\n`);
    log(`wrote ${files.join(', ')}`);
    if (ctx.failures.length > 0) {
      // Targets never fail the run (the table says pass/fail); broken workloads do, so CI's smoke run notices.
      log(`failures:\n  ${ctx.failures.join('\n  ')}`);
      process.exitCode = 1;
    }
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
    }
    log(`done in ${((performance.now() - began) / 1000).toFixed(0)} s`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killChildren();
    process.exit(130);
  });
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    killChildren();
    process.exit(1);
  },
);
