// Several instances (issue "Several instances, a Neo4j cluster, and the metrics to run them"): two
// Skein processes on one Neo4j and one Redis, each with its own data folder and one shared files
// folder, the way a deployment runs them. A socket on A hears posts made on B; a replay from A
// after posts on B is exact; a logout, password change or scope change on one instance ends what
// the other had cached at once, and so do a recipient removed or a message deleted on A for the
// answers B's view cache kept; a file uploaded on A downloads from B; and killing B with SIGKILL in
// the middle of a load alternating between them loses no acknowledged message, no event and no
// webhook delivery.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { addMember, createChannel, registerCreator } from '../channels/channel-helpers.js';
import {
  createKey,
  createManaged,
  grant,
  postMessage,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startSlowLink, type SlowLink } from '../support/slow-link.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedNeo4j, type EmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { TEST_ADMIN, type TestServer } from '../support/test-server.js';
import { processApi } from '../support/process-api.js';
import { closeAllSockets, openSocket, type Frame, type TestSocket } from '../support/ws-client.js';
import { download, upload } from '../files/file-helpers.js';
import { botWithEndpoint } from '../webhooks/webhook-helpers.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// Two service starts on a loaded 2-core machine.
jest.setTimeout(600_000);

const root = mkdtempSync(path.join(os.tmpdir(), 'skein-multi-'));
const filesDir = path.join(root, 'shared-files');
let redis: RedisServer;
/**
 * The instances' own Neo4j, not the test run's shared one: a service's webhook dispatcher claims
 * every user's deliveries, and on the shared store it took those of webhooks.int.test.ts whenever
 * jest ran the two files at once.
 */
let neo4j: EmbeddedNeo4j;
let slowLink: SlowLink | undefined;
let receiver: WebhookReceiver | undefined;
const instances: Record<'a' | 'b' | 'c', { process: ServiceProcess; api: TestServer } | undefined> = {
  a: undefined,
  b: undefined,
  c: undefined,
};

const METRICS_TOKEN = 'metrics-token-for-multi-instance-tests';

/** How many reads `api` has answered from its view cache so far (GET /metrics). */
async function viewCacheHits(api: TestServer): Promise<number> {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = (await res.text())
    .split('\n')
    .find((l) => l.startsWith('skein_view_cache_lookups_total{outcome="hit"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** Reads `pathname` twice on `api`, the second time from its view cache; answers the status. */
async function readTwice(api: TestServer, token: string, pathname: string): Promise<number> {
  const first = await api.request('GET', pathname, { token });
  const before = await viewCacheHits(api);
  const second = await api.request('GET', pathname, { token });
  expect(second.status).toBe(first.status);
  expect(await viewCacheHits(api)).toBeGreaterThan(before);
  return second.status;
}

async function startInstance(name: 'a' | 'b' | 'c', redisUrl = redis.url): Promise<TestServer> {
  const port = await freePort();
  const process = await startServiceProcess({
    PORT: String(port),
    NEO4J_URI: neo4j.target.uri,
    NEO4J_PASSWORD: neo4j.target.password,
    REDIS_URL: redisUrl,
    SKEIN_DATA_DIR: path.join(root, name),
    SKEIN_FILES_DIR: filesDir,
    SKEIN_ADMIN_TAG: TEST_ADMIN.tag,
    SKEIN_ADMIN_PASSWORD: TEST_ADMIN.password,
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    // The webhook receiver listens on 127.0.0.1.
    SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true',
    SKEIN_METRICS_TOKEN: METRICS_TOKEN,
    LOG_LEVEL: 'silent',
  });
  const api = processApi(process.url);
  instances[name] = { process, api };
  return api;
}

let a: TestServer;
let b: TestServer;

/** Instance C, which reaches Redis through a link that holds Redis's answers 300 ms (started once). */
async function lateInstance(): Promise<TestServer> {
  if (instances.c) return instances.c.api;
  slowLink = await startSlowLink(redis.url, 300);
  return startInstance('c', slowLink.url);
}

beforeAll(async () => {
  neo4j = await startEmbeddedNeo4j({
    dataDir: path.join(root, 'neo4j'),
    port: await freePort(),
    heap: '512m',
    pageCache: '64m',
    log: createLogger('warn'),
  });
  redis = await startRedisServer();
  a = await startInstance('a');
  b = await startInstance('b');
});

afterAll(async () => {
  closeAllSockets();
  for (const instance of Object.values(instances)) {
    if (!instance) continue;
    instance.process.kill('SIGTERM');
    await instance.process.exited;
  }
  await slowLink?.close();
  await receiver?.close();
  await redis?.stop();
  await neo4j?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function connect(
  api: TestServer,
  user: TestUser,
  since?: string,
): Promise<{ socket: TestSocket; cursor: string }> {
  const socket = await openSocket(api, { token: user.token, query: since ? { since } : {} });
  const ready = await socket.next();
  expect(ready).toMatchObject({ type: 'ready', uid: user.uid });
  return { socket, cursor: ready.cursor as string };
}

async function post(api: TestServer, author: TestUser, to: TestUser, content: string): Promise<string> {
  const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
    token: author.token,
    body: { content, recipients: [to.tag] },
  });
  expect(res.status).toBe(200);
  return res.body[0]!.message.id;
}

function messageIdOf(frame: Frame): string {
  return (frame.event as { content: { messages: { id: string }[] } }).content.messages[0]!.id;
}

describe('two instances on one Neo4j and one Redis', () => {
  it('when a message is posted on B, then a socket on A hears it, and a replay from A after posts on B is exact', async () => {
    const [author, reader] = await Promise.all([registerWriter(b), registerWriter(a)]);
    const live = await connect(a, reader);
    const first = await post(b, author, reader, 'from B, heard on A');
    expect(messageIdOf(await live.socket.next())).toBe(first);
    live.socket.ws.close();

    const later = [];
    for (const n of [1, 2, 3]) later.push(await post(b, author, reader, `missed ${n}`));
    const replay = await connect(a, reader, live.cursor);
    const heard = [];
    for (let i = 0; i < 4; i++) heard.push(messageIdOf(await replay.socket.next()));
    expect(heard).toEqual([first, ...later]);
    await expect(replay.socket.next(1500)).rejects.toThrow();
  });

  it('when a socket opens on an instance that hears Redis late, just after a post on B answered, then its ready cursor covers that post (neither live nor replayed)', async () => {
    // B's rounds reach C's router well after B's posts answered.
    const c = await lateInstance();
    const [author, reader] = await Promise.all([registerWriter(b), registerWriter(c)]);
    for (let round = 0; round < 3; round++) {
      await post(b, author, reader, `before connect ${round}`);
      const { socket, cursor } = await connect(c, reader);
      const marker = await post(b, author, reader, `after connect ${round}`);
      expect(messageIdOf(await socket.next())).toBe(marker);
      socket.ws.close();
      const resumed = await connect(c, reader, cursor);
      expect(messageIdOf(await resumed.socket.next())).toBe(marker);
      resumed.socket.ws.close();
    }
  });

  it('when a session is logged out on A, then B refuses it at once although B had just accepted it', async () => {
    const user = await registerWriter(a);
    // B has read (and may keep) the session record.
    expect((await b.request('GET', '/v1/auth/session', { token: user.token })).status).toBe(200);
    expect((await a.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);
    expect((await b.request('GET', '/v1/auth/session', { token: user.token })).status).toBe(401);
  });

  it('when a password changes on B, then the other sessions end on A at once', async () => {
    const user = await registerWriter(a);
    const other = await a.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect((await a.request('GET', '/v1/auth/session', { token: other.body.access_token })).status).toBe(200);
    const changed = await b.request('POST', '/v1/auth/password/change', {
      token: user.token,
      body: { current_password: user.password, new_password: `${user.password}-changed` },
    });
    expect(changed.status).toBe(200);
    expect((await a.request('GET', '/v1/auth/session', { token: other.body.access_token })).status).toBe(401);
  });

  it('when an admin takes a scope away on A, then B refuses what it granted at once', async () => {
    const user = await registerWriter(a);
    expect((await b.request('GET', '/v1/messages/timeline', { token: user.token })).status).toBe(200);
    await grant(a, user.uid, { scopes: ['realtime.connect'] });
    const refused = await b.request<{ code: string }>('GET', '/v1/messages/timeline', { token: user.token });
    expect(refused.status).toBe(403);
  });

  it('when an admin takes a scope away on A, then C, which hears Redis late, refuses what it had cached at once', async () => {
    const c = await lateInstance();
    const user = await registerWriter(a);
    // C has read the session record (and keeps it for a few seconds).
    expect((await c.request('GET', '/v1/messages/timeline', { token: user.token })).status).toBe(200);
    await grant(a, user.uid, { scopes: ['realtime.connect'] });
    const refused = await c.request<{ code: string }>('GET', '/v1/messages/timeline', { token: user.token });
    expect(refused.status).toBe(403);
    expect((await a.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);
    expect((await c.request('GET', '/v1/auth/session', { token: user.token })).status).toBe(401);
  });

  it('when a recipient is removed on A, then B, which had kept the message and the timeline, answers without it at once', async () => {
    const [author, reader] = await Promise.all([registerWriter(a), registerWriter(a)]);
    const id = await post(a, author, reader, 'kept on B');
    expect(await readTwice(b, reader.token, `/v1/messages/${id}`)).toBe(200);
    expect(await readTwice(b, reader.token, '/v1/messages/timeline')).toBe(200);
    const removed = await a.request('DELETE', '/v1/recipients/remove', {
      token: author.token,
      body: { recipient_uid: reader.uid, message_id: id },
    });
    expect(removed.status).toBe(200);
    expect((await b.request('GET', `/v1/messages/${id}`, { token: reader.token })).status).toBe(404);
    const timeline = await b.request<{ messages: { id: string }[] }>('GET', '/v1/messages/timeline', {
      token: reader.token,
    });
    expect(timeline.body.messages.map((m) => m.id)).not.toContain(id);
  });

  it('when a new thread is posted on A, then B shows it in the conversation it had kept and still answers the one with an outsider from its cache', async () => {
    const [author, reader, outsider] = await Promise.all([
      registerWriter(a),
      registerWriter(a),
      registerWriter(a),
    ]);
    await post(a, outsider, author, 'from the outsider');
    const withReader = `/v1/messages/conversation/${reader.uid}`;
    const withOutsider = `/v1/messages/conversation/${outsider.uid}`;
    expect(await readTwice(b, author.token, withReader)).toBe(200);
    expect(await readTwice(b, author.token, withOutsider)).toBe(200);

    const id = await post(a, author, reader, 'a new thread seen on B');

    const page = await b.request<{ messages: { id: string }[] }>('GET', withReader, { token: author.token });
    expect(page.body.messages.map((m) => m.id)).toEqual([id]);
    const before = await viewCacheHits(b);
    expect((await b.request('GET', withOutsider, { token: author.token })).status).toBe(200);
    expect(await viewCacheHits(b)).toBe(before + 1);
  });

  it('when a message is deleted on A, then B answers 404 for the message and the thread it had kept', async () => {
    const [author, reader] = await Promise.all([registerWriter(a), registerWriter(a)]);
    const id = await post(a, author, reader, 'kept on B, then deleted');
    expect(await readTwice(b, reader.token, `/v1/messages/${id}`)).toBe(200);
    expect(await readTwice(b, reader.token, `/v1/messages/${id}/thread`)).toBe(200);
    expect((await a.request('DELETE', `/v1/messages/${id}`, { token: author.token })).status).toBe(200);
    expect((await b.request('GET', `/v1/messages/${id}`, { token: reader.token })).status).toBe(404);
    expect((await b.request('GET', `/v1/messages/${id}/thread`, { token: reader.token })).status).toBe(404);
  });

  it('when an API key is revoked on A, then B refuses the key and the session minted from it at once, although B had just accepted both', async () => {
    const user = await registerWriter(a, { apiAccess: true });
    const { key, key_id } = await createKey(a, user.token);
    const minted = await b.request<{ access_token: string }>('POST', '/v1/auth/token', {
      apiKey: key,
      body: {},
    });
    expect(minted.status).toBe(200);
    const session = minted.body.access_token;
    expect(await readTwice(b, session, '/v1/messages/timeline')).toBe(200);
    expect((await b.request('GET', '/v1/messages/timeline', { apiKey: key })).status).toBe(200);
    expect((await a.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token })).status).toBe(200);
    const byKey = await b.request<{ code: string }>('GET', '/v1/messages/timeline', { apiKey: key });
    expect([byKey.status, byKey.body.code]).toEqual([401, 'invalid_api_key']);
    const bySession = await b.request<{ code: string }>('GET', '/v1/messages/timeline', { token: session });
    expect([bySession.status, bySession.body.code]).toEqual([401, 'invalid_session']);
  });

  it('when a member leaves a channel on A, then B, which had kept the channel page, the timeline and the message, answers without them at once', async () => {
    const [owner, member] = await Promise.all([registerCreator(a), registerWriter(a)]);
    const channel = await createChannel(a, owner.token);
    await addMember(a, owner.token, channel.id, { uid: member.uid });
    const message = await postMessage(a, owner.token, {
      content: 'kept on B, then left',
      channel_ids: [channel.id],
    });
    expect(await readTwice(b, member.token, `/v1/channels/${channel.id}/messages`)).toBe(200);
    expect(await readTwice(b, member.token, '/v1/messages/timeline')).toBe(200);
    expect(await readTwice(b, member.token, `/v1/messages/${message.id}`)).toBe(200);
    const left = await a.request('DELETE', `/v1/channels/${channel.id}/members/${member.uid}`, {
      token: member.token,
    });
    expect(left.status).toBe(200);
    expect(
      (await b.request('GET', `/v1/channels/${channel.id}/messages`, { token: member.token })).status,
    ).toBe(403);
    const timeline = await b.request<{ messages: { id: string }[] }>('GET', '/v1/messages/timeline', {
      token: member.token,
    });
    expect(timeline.body.messages.map((m) => m.id)).not.toContain(message.id);
    expect((await b.request('GET', `/v1/messages/${message.id}`, { token: member.token })).status).toBe(404);
  });

  it('when a bot is deactivated on A, then B refuses its delegated session at once although B had just accepted it', async () => {
    const manager = await registerWriter(a);
    const bot = await createManaged(a, manager.token, { is_bot: true });
    const delegated = await b.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    const token = delegated.body.access_token;
    expect((await b.request('GET', '/v1/auth/session', { token })).status).toBe(200);
    const deactivated = await a.request('POST', `/v1/managed/users/${bot.uid}/deactivate`, {
      token: manager.token,
    });
    expect(deactivated.status).toBe(200);
    expect((await b.request('GET', '/v1/auth/session', { token })).status).toBe(401);
  });

  it('when a file is uploaded on A, then it downloads from B (a shared SKEIN_FILES_DIR)', async () => {
    const owner = await registerWriter(a);
    const uploaded = await upload(a, owner.token, 'shared bytes', { filename: 'shared.txt' });
    expect(uploaded.status).toBe(200);
    const fetched = await download(b, owner.token, uploaded.body.file_id as string);
    expect(fetched.status).toBe(200);
    expect(fetched.bytes.toString()).toBe('shared bytes');
  });

  it('when B is killed with SIGKILL under a load alternating A and B, then no acknowledged message, no event and no webhook is lost', async () => {
    const [author, reader] = await Promise.all([registerWriter(a), registerWriter(a)]);
    // Every post also goes to a bot whose endpoint is a local receiver: both instances' dispatchers
    // send, and what B had claimed when it died is sent by A once B's lease runs out (60 s).
    receiver = await startWebhookReceiver();
    const bot = await botWithEndpoint(b, author, receiver);
    const { cursor } = await connect(a, reader);
    const acknowledged: string[] = [];
    let stop = false;
    const loop = async (worker: number) => {
      for (let i = 0; !stop; i++) {
        const api = (worker + i) % 2 === 0 ? a : b;
        try {
          const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
            token: author.token,
            body: { content: `load ${worker}.${i}`, recipients: [reader.tag, `uid:${bot.uid}`] },
          });
          if (res.status === 200 && res.body[0]?.ok) acknowledged.push(res.body[0].message.id);
        } catch {
          // B died with this request in flight: unacknowledged, so it may or may not exist.
        }
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(loop));
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 50));
    instances.b!.process.kill('SIGKILL');
    await instances.b!.process.exited;
    instances.b = undefined;
    const atKill = acknowledged.length;
    while (acknowledged.length < atKill + 10) await new Promise((resolve) => setTimeout(resolve, 50));
    stop = true;
    await load;

    // Every acknowledged message exists, and the reader's events from the cursor taken before the
    // load hand each of them out exactly once (events B committed but did not number are numbered
    // by A's sweep).
    const seen: string[] = [];
    let since = cursor;
    for (let page = 0; page < 50; page++) {
      const res = await a.request<{
        notifications: { event: { type: string; content: { messages: { id: string }[] } } }[];
        cursor: string;
        has_more: boolean;
      }>('GET', `/v1/notifications?since=${encodeURIComponent(since)}&limit=100`, { token: reader.token });
      expect(res.status).toBe(200);
      for (const n of res.body.notifications)
        if (n.event.type === 'sent') seen.push(n.event.content.messages[0]!.id);
      since = res.body.cursor;
      if (!res.body.has_more) {
        if (acknowledged.every((id) => seen.includes(id))) break;
        // The sweep numbers what B left pending within a second or two.
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    for (const id of acknowledged) {
      expect((await a.request('GET', `/v1/messages/${id}`, { token: reader.token })).status).toBe(200);
    }
    expect(acknowledged.filter((id) => !seen.includes(id))).toEqual([]);
    expect(seen.length).toBe(new Set(seen).size);

    // Every acknowledged post reaches the bot's endpoint, at least once, signed; a delivery sent
    // twice (B sent it, died before recording it, A sent it again) keeps its webhook-id.
    const webhookIdsOf = new Map<string, Set<string>>();
    const delivered = (received: WebhookReceiver['received']) => {
      webhookIdsOf.clear();
      for (const r of received) {
        const event = JSON.parse(r.body) as { type: string; content: { messages: { id: string }[] } };
        if (event.type !== 'sent') continue;
        const id = event.content.messages[0]!.id;
        webhookIdsOf.set(id, (webhookIdsOf.get(id) ?? new Set()).add(r.webhookId));
      }
      return acknowledged.every((id) => webhookIdsOf.has(id));
    };
    await receiver.waitFor(delivered, 150_000, 'a webhook for every acknowledged post');
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect([...webhookIdsOf.values()].filter((ids) => ids.size > 1)).toEqual([]);
  });
});
