// With REDIS_URL, SKEIN_WS_MAX_SOCKETS_PER_USER bounds an account's notification sockets and GraphQL
// subscriptions on all instances together (security review 2026-12-02, item 4), and an instance that
// dies holding some locks its user out for no longer than their leases (3 × SKEIN_WS_HEARTBEAT_SECONDS).
// Two app instances in this process share one real redis-server, as the rate limits do.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { WebSocket } from 'ws';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, closeOf, openSocket, socketUrl, type TestSocket } from '../support/ws-client.js';

const CEILING = 3;
const HEARTBEAT_SECONDS = 2;
let redis: RedisServer;
let a: TestServer;
let b: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  // A Redis of its own, so that no other test's sockets count here.
  redis = await startRedisServer();
  const env = {
    REDIS_URL: redis.url,
    SKEIN_WS_MAX_SOCKETS_PER_USER: String(CEILING),
    SKEIN_WS_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
  };
  [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
});

afterAll(async () => {
  await Promise.all(clients.map((made) => Promise.resolve(made.dispose())));
  closeAllSockets();
  await Promise.all([a?.close(), b?.close()]);
  await redis?.stop();
});

/** Opens /v1/ws/v1 on `api` and answers it with its first frame. */
async function socketOn(api: TestServer, user: TestUser): Promise<[TestSocket, { type: string }]> {
  const socket = await openSocket(api, { token: user.token });
  return [socket, await socket.next()];
}

async function expectRefused(api: TestServer, user: TestUser): Promise<void> {
  const [socket, first] = await socketOn(api, user);
  expect(first).toEqual({ type: 'error', code: 'rate_limited', detail: expect.any(String) });
  expect(await closeOf(socket)).toEqual({ code: 4429, reason: 'rate_limited' });
}

/** Tries to open a socket on `api` every 250 ms until one is admitted (a bounded number of times). */
async function admittedEventually(api: TestServer, user: TestUser, tries: number): Promise<TestSocket> {
  for (let attempt = 0; ; attempt++) {
    const [socket, first] = await socketOn(api, user);
    if (first.type === 'ready') return socket;
    expect(first).toMatchObject({ type: 'error', code: 'rate_limited' });
    expect(attempt).toBeLessThan(tries);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function subscriber(api: TestServer, user: TestUser): Client {
  const made = createClient({
    url: socketUrl(api, '/graphql'),
    webSocketImpl: WebSocket,
    connectionParams: { access_token: user.token },
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(made);
  return made;
}

const NOTIFICATIONS = 'subscription { notifications { id } }';

describe('sockets and subscriptions per account across instances', () => {
  it('when a user holds the ceiling in sockets on A and a subscription on B, then another socket or subscription on either is refused, and a closed socket on A frees a place on B', async () => {
    const [user, other] = [await registerWriter(a), await registerWriter(a)];
    const [first] = await socketOn(a, user);
    await socketOn(a, user);
    // The subscription on B counts once it is open; posts made before then are not live for it,
    // so post until one is heard.
    const subscription = subscriber(b, user).iterate<{ notifications: { id: string } }>({
      query: NOTIFICATIONS,
    });
    const heard = subscription.next();
    let done = false;
    void heard.then(() => (done = true));
    for (let attempt = 0; !done; attempt++) {
      expect(attempt).toBeLessThan(50);
      await postMessage(b, other.token, { content: `hello ${attempt}`, recipients: [user.tag] });
      await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    const notification = await heard;
    if (notification.done) throw new Error('the subscription ended');
    expect(notification.value.data?.notifications.id).toEqual(expect.any(String));

    await expectRefused(a, user);
    await expectRefused(b, user);
    const refusedSubscription = await subscriber(a, user).iterate({ query: NOTIFICATIONS }).next();
    if (refusedSubscription.done) throw new Error('the subscription ended without an answer');
    expect(refusedSubscription.value.errors?.[0]?.extensions).toMatchObject({
      code: 'rate_limited',
      status: 429,
    });
    // Another user is not limited by this one's sockets.
    expect((await socketOn(b, other))[1]).toMatchObject({ type: 'ready', uid: other.uid });

    first.ws.close();
    await first.closed;
    // A counts the socket out once it has seen the close.
    await admittedEventually(b, user, 40);
    await expectRefused(a, user);
  });

  it('when an instance dies holding a user’s sockets, then they stop counting once their leases lapse (3 heartbeats), and never before it died', async () => {
    // Leases of 15 s, so that the refusal right after the crash is well inside them.
    const crashing = await startTestServer({
      REDIS_URL: redis.url,
      SKEIN_WS_MAX_SOCKETS_PER_USER: String(CEILING),
      SKEIN_WS_HEARTBEAT_SECONDS: '5',
    });
    const user = await registerWriter(a);
    const key = `skein-ceiling:feeds:${user.uid}`;
    const inspect = new Redis(redis.url);
    try {
      for (let i = 0; i < CEILING; i++)
        expect((await socketOn(crashing, user))[1]).toMatchObject({ type: 'ready' });
      expect(await inspect.zcard(key)).toBe(CEILING);
      // As a crash looks from Redis: the instance stops renewing its leases and never removes them
      // (its Redis connection is gone before its sockets end).
      await crashing.ctx.limits.close();
      await crashing.close();
      expect(await inspect.zcard(key)).toBe(CEILING);
      await expectRefused(a, user);
      // Within the lease (15 s here), and certainly within 100 tries 250 ms apart.
      await admittedEventually(a, user, 100);
      // Lapsed leases were dropped to make room, never more than the ceiling.
      expect(await inspect.zcard(key)).toBeLessThanOrEqual(CEILING);
    } finally {
      inspect.disconnect();
    }
  });

  it('when an instance renews its leases, then sockets held longer than a lease still count', async () => {
    const user = await registerWriter(a);
    for (let i = 0; i < CEILING; i++) expect((await socketOn(a, user))[1]).toMatchObject({ type: 'ready' });
    // Two leases' time (12 s): without renewals they would have lapsed twice over.
    await new Promise((resolve) => setTimeout(resolve, 2 * 3 * HEARTBEAT_SECONDS * 1000));
    await expectRefused(b, user);
  });
});
