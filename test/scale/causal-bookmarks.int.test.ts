// Read-your-own-writes across instances on a Neo4j cluster (issue 17): two instances reach the
// embedded server through a neo4j:// (routing) URI and share one Redis. A client's write on A leaves
// its bookmark in Redis under its credential; its next request on B opens its Neo4j sessions from
// that bookmark (a cluster member serving B's read would first wait until it has applied A's write).
// The embedded server is a one-member cluster, so the read would see the write anyway: what is
// checked is the bookmark B's sessions are handed beside B's own bookmark manager, watched through
// B's driver (without the carrying, none is). With a bolt:// URI nothing of this runs: no Redis
// read, no Redis write.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { parseSessionToken } from '../../src/platform/auth/secrets.js';
import { createKey, postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

jest.setTimeout(120_000);

let redis: RedisServer;
let client: Redis;
let a: TestServer;
let b: TestServer;
let single: TestServer;

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.url);
  const routing = process.env.SKEIN_TEST_NEO4J_URI!.replace(/^bolt:/, 'neo4j:');
  [a, b, single] = await Promise.all([
    startTestServer({ NEO4J_URI: routing, REDIS_URL: redis.url }),
    startTestServer({ NEO4J_URI: routing, REDIS_URL: redis.url }),
    // The default: one Neo4j server (bolt://), here with Redis for the other shared state.
    startTestServer({ REDIS_URL: redis.url }),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), single?.close()]);
  client?.disconnect();
  await redis?.stop();
});

/** What the newest writes of a session left in Redis, newest first. */
function recordedFor(token: string): Promise<string[]> {
  return client.lrange(`skein:bookmarks:s:${parseSessionToken(token)!.id}`, 0, -1);
}

/**
 * Runs `request` on `api`, answering the bookmarks given to each Neo4j session opened meanwhile
 * beside the instance's own bookmark manager: only carried bookmarks arrive this way.
 */
async function sessionBookmarksDuring<T>(
  api: TestServer,
  request: () => Promise<T>,
): Promise<{ result: T; started: string[][] }> {
  const spy = jest.spyOn(api.ctx.db.driver, 'session');
  try {
    const result = await request();
    const started = spy.mock.calls.map(([config]) => [...(config?.bookmarks ?? [])]);
    return { result, started };
  } finally {
    spy.mockRestore();
  }
}

describe('reads after writes across instances, on a neo4j:// URI with Redis', () => {
  let author: TestUser;
  let reader: TestUser;

  beforeAll(async () => {
    [author, reader] = await Promise.all([registerWriter(a), registerWriter(a)]);
  });

  it('when a client posts on A, then its next request on B starts from the bookmark of that write and sees it', async () => {
    const message = await postMessage(a, author.token, { content: 'written on A', recipients: [reader.tag] });
    const [newest] = await recordedFor(author.token);
    expect(newest).toBeDefined();

    const { result: read, started } = await sessionBookmarksDuring(b, () =>
      b.request<{ content: string }>('GET', `/v1/messages/${message.id}`, { token: author.token }),
    );
    expect(read.status).toBe(200);
    expect(read.body.content).toBe('written on A');
    expect(started.some((bookmarks) => bookmarks.includes(newest!))).toBe(true);
  });

  it('when a client writes through GraphQL on A, then its GraphQL read on B starts from that write', async () => {
    const posted = await a.graphql<{ postMessages: { ok: boolean; message: { id: string } | null }[] }>(
      'mutation ($m: [MessageInput!]!) { postMessages(messages: $m) { ok message { id } } }',
      { m: [{ content: 'written through GraphQL', recipients: [{ user_tag: reader.tag }] }] },
      { token: author.token },
    );
    const id = posted.body.data!.postMessages[0]!.message!.id;
    const [newest] = await recordedFor(author.token);

    const { result: read, started } = await sessionBookmarksDuring(b, () =>
      b.graphql<{ message: { content: string } }>(
        'query ($id: String!) { message(message_id: $id) { content } }',
        { id },
        { token: author.token },
      ),
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data?.message.content).toBe('written through GraphQL');
    expect(started.some((bookmarks) => bookmarks.includes(newest!))).toBe(true);
  });

  it('when a session is minted on A (sign-up), then its first request on B starts from the write that made it', async () => {
    const user = await a.request<{ access_token: string }>('POST', '/v1/auth/register', {
      body: { user_tag: `c${Date.now().toString(36)}`, password: 'plenty-long-passphrase-42' },
    });
    expect(user.status).toBe(200);
    const [newest] = await recordedFor(user.body.access_token);
    expect(newest).toBeDefined();

    const { result: me, started } = await sessionBookmarksDuring(b, () =>
      b.request('GET', '/v1/users/me', { token: user.body.access_token }),
    );
    expect(me.status).toBe(200);
    expect(started.some((bookmarks) => bookmarks.includes(newest!))).toBe(true);
  });

  it('when an API key is created on A, then its first request on B starts from the write that made it', async () => {
    const partner = await registerWriter(a, { apiAccess: true });
    const key = await createKey(a, partner.token);
    const [newest] = await client.lrange(`skein:bookmarks:k:${key.key_id}`, 0, -1);
    expect(newest).toBeDefined();

    const { result: me, started } = await sessionBookmarksDuring(b, () =>
      b.request('GET', '/v1/users/me', { apiKey: key.key }),
    );
    expect(me.status).toBe(200);
    expect(started.some((bookmarks) => bookmarks.includes(newest!))).toBe(true);
  });

  it('when a request has no credentials, then it reads nothing from Redis and its sessions carry no bookmarks', async () => {
    const before = await lookups(b);
    const { result, started } = await sessionBookmarksDuring(b, () =>
      b.request('GET', '/v1/users/search?q=zz'),
    );
    expect(result.status).not.toBe(500);
    expect(await lookups(b)).toBe(before);
    expect(started.every((bookmarks) => bookmarks.length === 0)).toBe(true);
  });
});

describe('a bolt:// URI (one Neo4j server)', () => {
  it('when a client writes and reads, then nothing is read from or written to Redis for it', async () => {
    expect(single.ctx.db.causalBookmarks).toBeUndefined();
    const user = await registerWriter(single);
    const posted = await postMessage(single, user.token, { content: 'one server' });
    const read = await single.request('GET', `/v1/messages/${posted.id}`, { token: user.token });
    expect(read.status).toBe(200);
    expect(await lookups(single)).toBe(0);
    expect(await recordedFor(user.token)).toEqual([]);
  });
});

/** Bookmark reads from Redis this instance made, whatever their outcome. */
async function lookups(api: TestServer): Promise<number> {
  const { values } = await api.ctx.metrics.bookmarkLookups.get();
  return values.reduce((sum, { value }) => sum + value, 0);
}
