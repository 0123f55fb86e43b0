// REDIS_URL: two instances on one Neo4j and one real redis-server. Each sequencer round goes out on
// the Redis channel `skein:events` as one JSON object {from, to, events}; a socket on instance A hears
// a message posted on instance B, exactly once, with the same cursor as a socket on B. A Redis
// outage fails no request: B's own sockets still hear it, and A reads what it missed from the event
// log (its router notices the gap), in order, each once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { LoggedEvent, SequencedRound } from '../../src/components/event-log/event-log.js';
import { REDIS_CHANNEL } from '../../src/components/event-log/redis-event-bus.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket, type Frame, type TestSocket } from '../support/ws-client.js';

let redis: RedisServer;
let instanceA: TestServer;
let instanceB: TestServer;
beforeAll(async () => {
  redis = await startRedisServer();
  instanceA = await startTestServer({ REDIS_URL: redis.url });
  instanceB = await startTestServer({ REDIS_URL: redis.url });
});
afterAll(async () => {
  for (const stop of listening) stop();
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

const listening: (() => void)[] = [];

/** Every round one instance's bus hands to its listeners that carries an event with this id. */
function roundsHeardOn(api: TestServer, eventId: string): SequencedRound[] {
  const heard: SequencedRound[] = [];
  listening.push(
    api.ctx.events.bus.subscribe((round) => {
      if (round.events.some((event) => event.id === eventId)) heard.push(round);
    }),
  );
  return heard;
}

/**
 * A round that is news to nobody: its positions are long past, so the instances' routers pass over
 * it (they have read the log beyond it), and only the bus itself is observed.
 */
function pastRound(eventId: string): SequencedRound {
  const event: LoggedEvent = {
    id: eventId,
    change_id: eventId,
    seq: 1,
    type: 'sent',
    uid: '00000000',
    channel_id: null,
    message_ids: [],
    skip_uids: [],
    actor_uid: '00000000',
    created_at: new Date().toISOString(),
    changes: [],
    membership: null,
  };
  return { from: 0, to: 1, events: [event] };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const firstId = (frame: Frame) =>
  (frame.event as { content: { messages: { id: string }[] } }).content.messages[0]!.id;

/** Waits until both instances' publisher and subscriber connections are back (and subscribed). */
async function bothInstancesConnected(url: string): Promise<void> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await probe.connect();
    for (let attempt = 0; attempt < 150; attempt++) {
      const list = String(await probe.client('LIST'));
      const publishers = (list.match(/name=skein-publisher /g) ?? []).length;
      // Subscribed to both channels: skein:events and skein:live (typing, streamed chunks).
      const subscribers = (list.match(/name=skein-subscriber .*sub=2 /g) ?? []).length;
      if (publishers === 2 && subscribers === 2) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the instances did not reconnect to Redis');
  } finally {
    probe.disconnect();
  }
}

describe('fan-out through Redis', () => {
  it('when a message is posted on instance B, then a socket on instance A receives it exactly once, the same frame as on B', async () => {
    const author = await registerWriter(instanceB);
    const reader = await registerWriter(instanceB);
    const socketA = await connect(instanceA, reader);
    const socketB = await connect(instanceB, reader);

    const first = await postMessage(instanceB, author.token, { content: 'across', recipients: [reader.tag] });
    const frameA = await socketA.next();
    expect(frameA).toMatchObject({
      type: 'notification',
      cursor: expect.any(String),
      event: { content: { messages: [{ id: first.id }] } },
    });
    expect(await socketB.next()).toEqual(frameA);

    // A second post is the marker: the next frame on each socket is it, so nothing came twice.
    const second = await postMessage(instanceB, author.token, { content: 'again', recipients: [reader.tag] });
    const frames = [await socketA.next(), await socketB.next()];
    for (const frame of frames) expect(firstId(frame)).toBe(second.id);
    expect(frames[1]).toEqual(frames[0]);
    expect(frames[0]!.cursor).not.toBe(frameA.cursor);
    for (const socket of [socketA, socketB]) {
      socket.send({ type: 'ping' });
      expect(await socket.next()).toEqual({ type: 'pong' });
    }
  });

  it('when a round is published on instance B, then it travels on skein:events as one JSON {from, to, events} and each instance’s bus hands it on once, B’s included', async () => {
    const probe = new Redis(redis.url, { lazyConnect: true });
    const onWire: string[] = [];
    try {
      await probe.connect();
      probe.on('message', (channel: string, text: string) => {
        if (channel === REDIS_CHANNEL) onWire.push(text);
      });
      await probe.subscribe(REDIS_CHANNEL);
      const id = `probe-${Date.now()}`;
      const marker = `${id}-marker`;
      const onA = roundsHeardOn(instanceA, id);
      const onB = roundsHeardOn(instanceB, id);
      const markersOnA = roundsHeardOn(instanceA, marker);
      const markersOnB = roundsHeardOn(instanceB, marker);

      const round = pastRound(id);
      await instanceB.ctx.events.bus.publish(round);
      await instanceB.ctx.events.bus.publish(pastRound(marker));
      await until(() => markersOnA.length > 0 && markersOnB.length > 0, 'the marker round on both instances');
      expect(onA).toEqual([round]);
      expect(onB).toEqual([round]);

      const published = onWire.filter((text) => text.includes(id) && !text.includes(marker));
      expect(published).toHaveLength(1);
      const parsed = JSON.parse(published[0]!) as Record<string, unknown>;
      expect(Object.keys(parsed).sort()).toEqual(['events', 'from', 'to']);
      expect(parsed).toEqual(round);
    } finally {
      probe.disconnect();
    }
  });

  it('when Redis is down, then posting still succeeds, B’s sockets hear it at once, and A reads it from the log, each once, in order', async () => {
    const author = await registerWriter(instanceB);
    const reader = await registerWriter(instanceB);
    const socketA = await connect(instanceA, reader);
    const socketB = await connect(instanceB, reader);

    await redis.stop();
    const during = await postMessage(instanceB, author.token, {
      content: 'during outage',
      recipients: [reader.tag],
    });
    // B's own listeners still hear it; A finds the gap in the log (its poll, or the next round).
    const duringB = await socketB.next();
    expect(firstId(duringB)).toBe(during.id);

    redis = await startRedisServer(redis.port);
    await bothInstancesConnected(redis.url);
    const after = await postMessage(instanceB, author.token, {
      content: 'after outage',
      recipients: [reader.tag],
    });
    const duringA = await socketA.next();
    expect(duringA).toEqual(duringB);
    const afterA = await socketA.next();
    expect(firstId(afterA)).toBe(after.id);
    expect(await socketB.next()).toEqual(afterA);
    for (const socket of [socketA, socketB]) {
      socket.send({ type: 'ping' });
      expect(await socket.next()).toEqual({ type: 'pong' });
    }
  });
});
