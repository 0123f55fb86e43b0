// REDIS_URL: two instances on one Neo4j and one real redis-server. A socket on instance A hears a
// message posted on instance B, exactly once; a Redis outage fails no request, and the notifications
// it kept from other instances are caught up from the outbox.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { StoredNotification } from '../../src/components/events/notification-event.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket, type TestSocket } from '../support/ws-client.js';

let redis: RedisServer;
let instanceA: TestServer;
let instanceB: TestServer;
beforeAll(async () => {
  redis = await startRedisServer();
  instanceA = await startTestServer({ REDIS_URL: redis.url });
  instanceB = await startTestServer({ REDIS_URL: redis.url });
});
afterAll(async () => {
  closeAllSockets();
  await instanceA?.close();
  await instanceB?.close();
  await redis?.stop();
});

async function connect(api: TestServer, user: TestUser): Promise<TestSocket> {
  const socket = await openSocket(api, { token: user.token });
  expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid });
  return socket;
}

/** Every notification one instance's bus hands to its listeners for `uid`. */
function heardOn(api: TestServer, uid: string): StoredNotification[] {
  const heard: StoredNotification[] = [];
  api.ctx.events.subscribe(uid, (n) => heard.push(n));
  return heard;
}

/** Waits until both instances' publisher and subscriber connections are back (and subscribed). */
async function bothInstancesConnected(url: string): Promise<void> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await probe.connect();
    for (let attempt = 0; attempt < 150; attempt++) {
      const list = String(await probe.client('LIST'));
      const publishers = (list.match(/name=skein-publisher /g) ?? []).length;
      const subscribers = (list.match(/name=skein-subscriber .*sub=1 /g) ?? []).length;
      if (publishers === 2 && subscribers === 2) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the instances did not reconnect to Redis');
  } finally {
    probe.disconnect();
  }
}

describe('fan-out through Redis', () => {
  it('when a message is posted on instance B, then a socket on instance A receives it exactly once', async () => {
    const author = await registerWriter(instanceB);
    const reader = await registerWriter(instanceB);
    const onA = heardOn(instanceA, reader.uid);
    const onB = heardOn(instanceB, reader.uid);
    const socketA = await connect(instanceA, reader);
    const socketB = await connect(instanceB, reader);

    const first = await postMessage(instanceB, author.token, { content: 'across', recipients: [reader.tag] });
    const frameA = await socketA.next();
    expect(frameA).toMatchObject({
      type: 'notification',
      seq: 1,
      event: { content: { messages: [{ id: first.id }] } },
    });
    expect(await socketB.next()).toEqual(frameA);

    // A second post is the marker: the next frame on each socket is it, so nothing came twice.
    const second = await postMessage(instanceB, author.token, { content: 'again', recipients: [reader.tag] });
    for (const socket of [socketA, socketB]) {
      expect(await socket.next()).toMatchObject({
        seq: 2,
        event: { content: { messages: [{ id: second.id }] } },
      });
    }
    // Each bus delivered each notification once, the publishing instance's included.
    expect(onA.map((n) => n.seq)).toEqual([1, 2]);
    expect(onB.map((n) => n.seq)).toEqual([1, 2]);
  });

  it('when Redis is down, then posting still succeeds, and A catches up from the outbox once it is back', async () => {
    const author = await registerWriter(instanceB);
    const reader = await registerWriter(instanceB);
    const socketA = await connect(instanceA, reader);
    const socketB = await connect(instanceB, reader);

    await redis.stop();
    const during = await postMessage(instanceB, author.token, {
      content: 'during outage',
      recipients: [reader.tag],
    });
    // B's own listeners still hear it; A cannot until something shows it the gap.
    expect(await socketB.next()).toMatchObject({
      seq: 1,
      event: { content: { messages: [{ id: during.id }] } },
    });

    redis = await startRedisServer(redis.port);
    await bothInstancesConnected(redis.url);
    const after = await postMessage(instanceB, author.token, {
      content: 'after outage',
      recipients: [reader.tag],
    });
    expect(await socketA.next()).toMatchObject({
      seq: 1,
      event: { content: { messages: [{ id: during.id }] } },
    });
    expect(await socketA.next()).toMatchObject({
      seq: 2,
      event: { content: { messages: [{ id: after.id }] } },
    });
    expect(await socketB.next()).toMatchObject({
      seq: 2,
      event: { content: { messages: [{ id: after.id }] } },
    });
  });
});
