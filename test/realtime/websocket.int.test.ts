// GET /v1/ws/v1: authentication and refusals, frames, live delivery, replay with since (cursors are
// opaque strings: a client resumes with the last one it received), events built at delivery
// (deleted or hidden messages are never handed out), message.updated and message.deleted, cursors
// across a restart, heartbeats, the slow-consumer bound and the per-user socket cap.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { attachRealtime } from '../../src/components/events/realtime-server.js';
import { realtimeResolvers } from '../../src/components/events/realtime.resolvers.js';
import { encodeCursor } from '../../src/components/event-log/event-log.js';
import { buildSchema } from '../../src/platform/graphql/graphql-server.js';
import {
  createKey,
  grant,
  postMessage,
  registerUser,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  closeAllSockets,
  closeOf,
  openSocket,
  socketUrl,
  tuneRealtime,
  type Frame,
  type TestSocket,
} from '../support/ws-client.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  closeAllSockets();
  await api.close();
});

/** Opens the socket and takes the ready frame, which must come first. */
async function connect(user: TestUser, query: Record<string, string> = {}): Promise<[TestSocket, Frame]> {
  const socket = await openSocket(api, { token: user.token, query });
  const ready = await socket.next();
  expect(ready).toEqual({ type: 'ready', uid: user.uid, cursor: expect.any(String) });
  return [socket, ready];
}

/** The frame's event, as the tests read it. */
interface ShownEvent {
  type: string;
  recipient_uid: string;
  content: {
    messages?: { id: string; content: string }[];
    context?: { id: string }[];
    changes?: string[];
    message_ids?: string[];
  };
}

const eventOf = (frame: Frame) => frame.event as ShownEvent;

/** The first message id of a notification frame (of the spec's types or message.updated). */
const firstId = (frame: Frame) => eventOf(frame).content.messages![0]!.id;

/** Takes notification frames until one shows `markerId`; answers those before it (marker excluded). */
async function framesUntil(socket: TestSocket, markerId: string): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const frame = await socket.next();
    expect(frame).toMatchObject({ type: 'notification', cursor: expect.any(String) });
    if (eventOf(frame).content.messages?.some((m) => m.id === markerId)) return frames;
    frames.push(frame);
  }
}

async function expectRefusal(socket: TestSocket, closeCode: number, code: string): Promise<void> {
  expect(await socket.next()).toEqual({ type: 'error', code, detail: expect.any(String) });
  expect(await closeOf(socket)).toEqual({ code: closeCode, reason: code });
}

/** A message from `author` with `recipient` as CC; answers its id. */
async function send(author: TestUser, recipient: TestUser, content = 'hello'): Promise<string> {
  return (await postMessage(api, author.token, { content, recipients: [recipient.tag] })).id;
}

describe('GET /v1/ws/v1 — connecting', () => {
  it('when the token comes in the Authorization header, then the first frame is ready with uid and an opaque cursor', async () => {
    const user = await registerWriter(api);
    const [, ready] = await connect(user);
    expect(typeof ready.cursor).toBe('string');
    expect((ready.cursor as string).length).toBeGreaterThan(0);
  });

  it('when the token comes as the access_token query parameter, then ready', async () => {
    const user = await registerWriter(api);
    const socket = await openSocket(api, { query: { access_token: user.token } });
    expect(await socket.next()).toEqual({ type: 'ready', uid: user.uid, cursor: expect.any(String) });
  });

  it('when no credentials are sent, then an error frame and close 4401 not_authenticated', async () => {
    await expectRefusal(await openSocket(api), 4401, 'not_authenticated');
  });

  it('when the token is not a valid session, then close 4401 invalid_session', async () => {
    const socket = await openSocket(api, { query: { access_token: 'svc_session_nonsense.abc' } });
    await expectRefusal(socket, 4401, 'invalid_session');
  });

  it('when the user lacks realtime.connect (read-only account), then close 4403 insufficient_scope', async () => {
    const reader = await registerUser(api);
    await expectRefusal(await openSocket(api, { token: reader.token }), 4403, 'insufficient_scope');
  });

  it('when the session was revoked by logout, then close 4401 invalid_session', async () => {
    const user = await registerWriter(api);
    expect((await api.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);
    await expectRefusal(await openSocket(api, { token: user.token }), 4401, 'invalid_session');
  });

  it.each(['-1', '0', 'not-a-cursor', 'c1.'])(
    'when since is %j (not a cursor this service handed out), then close 4400 validation_error',
    async (since) => {
      const user = await registerWriter(api);
      const socket = await openSocket(api, { token: user.token, query: { since } });
      await expectRefusal(socket, 4400, 'validation_error');
    },
  );

  it('when only the session cookie is sent from another site, then close 4403 csrf_rejected', async () => {
    const user = await registerWriter(api);
    const socket = await openSocket(api, {
      headers: { cookie: `svc_session=${user.token}`, origin: 'https://evil.example' },
    });
    await expectRefusal(socket, 4403, 'csrf_rejected');
  });

  it('when the session cookie comes from this service’s own origin, then ready', async () => {
    const user = await registerWriter(api);
    const socket = await openSocket(api, {
      headers: { cookie: `svc_session=${user.token}`, origin: api.url },
    });
    expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid });
  });

  it('when another path is asked to upgrade, then 404 and no socket', async () => {
    const ws = new WebSocket(socketUrl(api, '/v1/ws/other'));
    const status = await new Promise<number | undefined>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.once('open', () => resolve(undefined));
      ws.once('error', () => resolve(undefined));
    });
    ws.terminate();
    expect(status).toBe(404);
  });
});

describe('GET /v1/ws/v1 — frames', () => {
  it('when the client sends a ping, then the server answers pong', async () => {
    const [socket] = await connect(await registerWriter(api));
    socket.send({ type: 'ping' });
    expect(await socket.next()).toEqual({ type: 'pong' });
  });

  it('when the client sends something else, then an error frame and the socket stays open', async () => {
    const [socket] = await connect(await registerWriter(api));
    for (const junk of ['not json', '{"type":"subscribe"}', '[1,2]']) {
      socket.send(junk);
      expect(await socket.next()).toEqual({
        type: 'error',
        code: 'invalid_frame',
        detail: expect.any(String),
      });
    }
    socket.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await socket.next()).toMatchObject({ type: 'error', code: 'invalid_frame' });
    socket.send({ type: 'ping' });
    expect(await socket.next()).toEqual({ type: 'pong' });
  });

  it('when a message is posted with the user as recipient, then a notification frame with the webhook payload', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const [socket, ready] = await connect(reader);
    const id = await send(author, reader, 'live one');
    const frame = await socket.next();
    expect(typeof frame.cursor).toBe('string');
    expect(frame.cursor).not.toBe(ready.cursor);
    expect(frame).toEqual({
      type: 'notification',
      cursor: frame.cursor,
      event: {
        type: 'sent',
        recipient_uid: reader.uid,
        content: {
          messages: [
            { id, content: 'live one', parent_id: null, author: { uid: author.uid, user_tag: author.tag } },
          ],
          context: [],
        },
      },
    });
  });

  it('when the author posts, then the author’s own socket hears nothing of it', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const [authorSocket] = await connect(author);
    const [readerSocket] = await connect(reader);
    await send(author, reader);
    expect(await readerSocket.next()).toMatchObject({ type: 'notification' });
    authorSocket.send({ type: 'ping' });
    expect(await authorSocket.next()).toEqual({ type: 'pong' });
  });
});

describe('GET /v1/ws/v1 — replay with since', () => {
  it('when the client reconnects with the ready cursor, then exactly the missed notifications in order, then live ones; a later cursor resumes after it', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    await send(author, reader, 'seen before');
    const [first, ready] = await connect(reader);
    first.ws.close();
    await first.closed;

    const missed = [];
    for (const content of ['missed a', 'missed b', 'missed c'])
      missed.push(await send(author, reader, content));

    const [second, again] = await connect(reader, { since: ready.cursor as string });
    expect(again.cursor).not.toBe(ready.cursor);
    const replayed: Frame[] = [];
    for (let i = 0; i < missed.length; i++) replayed.push(await second.next());
    expect(replayed.map(firstId)).toEqual(missed);
    for (const frame of replayed) expect(typeof frame.cursor).toBe('string');
    expect(new Set(replayed.map((f) => f.cursor)).size).toBe(missed.length);
    const later = await send(author, reader, 'live after replay');
    const live = await second.next();
    expect(live).toMatchObject({ type: 'notification', cursor: expect.any(String) });
    expect(firstId(live)).toBe(later);
    second.ws.close();
    await second.closed;

    // Resuming with a cursor received hands out exactly what followed it: the same frames again.
    const [third] = await connect(reader, { since: replayed[1]!.cursor as string });
    expect(await third.next()).toEqual(replayed[2]);
    expect(await third.next()).toEqual(live);
    third.send({ type: 'ping' });
    expect(await third.next()).toEqual({ type: 'pong' });
  });

  it('when more than a page is missed and posts keep coming during the replay, then every notification once, in order', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const [probe, start] = await connect(reader);
    probe.ws.close();
    await probe.closed;
    const before = 52; // more than one replay page (50)
    const backlog: string[] = [];
    for (let i = 0; i < before; i++) backlog.push(await send(author, reader, `backlog ${i}`));
    const [socket] = await connect(reader, { since: start.cursor as string });
    const during = 4;
    const posting = (async () => {
      const ids: string[] = [];
      for (let i = 0; i < during; i++) ids.push(await send(author, reader, `during ${i}`));
      return ids;
    })();
    const frames: Frame[] = [];
    for (let i = 0; i < before + during; i++) frames.push(await socket.next());
    const duringIds = await posting;
    expect(frames.map(firstId)).toEqual([...backlog, ...duringIds]);
    expect(new Set(frames.map((f) => f.cursor)).size).toBe(before + during);
    socket.send({ type: 'ping' });
    expect(await socket.next()).toEqual({ type: 'pong' });
  });

  it('when lone posts and overlapping posts interleave, then the socket hears each once, in the order a replay hands them out', async () => {
    // A post alone on the instance numbers its own events in its write; overlapping posts are
    // numbered by the sequencer's rounds (event-sequencer.ts). Both kinds of round meet here.
    const authors = await Promise.all([1, 2, 3, 4].map(() => registerWriter(api)));
    const reader = await registerWriter(api);
    const [socket, ready] = await connect(reader);
    const posted: string[] = [];
    for (let i = 0; i < 5; i++) {
      posted.push(await send(authors[0]!, reader, `alone ${i}`));
      posted.push(...(await Promise.all(authors.map((author) => send(author, reader, `together ${i}`)))));
    }
    const live: Frame[] = [];
    for (let i = 0; i < posted.length; i++) live.push(await socket.next());
    expect(live.map(firstId).sort()).toEqual([...posted].sort());
    expect(new Set(live.map((f) => f.cursor)).size).toBe(posted.length);
    // The lone posts came in the order they were made, each after the burst before it.
    const lone = posted.filter((_, i) => i % 5 === 0);
    expect(live.map(firstId).filter((id) => lone.includes(id))).toEqual(lone);

    const [replay] = await connect(reader, { since: ready.cursor as string });
    const replayed: Frame[] = [];
    for (let i = 0; i < posted.length; i++) replayed.push(await replay.next());
    expect(replayed).toEqual(live);
    const listed = await api.request<{ notifications: { cursor: string }[] }>(
      'GET',
      '/v1/notifications?limit=100',
      {
        token: reader.token,
      },
    );
    expect(listed.body.notifications.map((n) => n.cursor)).toEqual(live.map((f) => f.cursor));
  });

  it('when since is beyond the latest position, then it counts as the latest and the next notification still arrives', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const ahead = encodeCursor(api.ctx.events.router.head + 1_000_000);
    const [socket, ready] = await connect(reader, { since: ahead });
    expect(ready.cursor).not.toBe(ahead);
    const id = await send(author, reader);
    const frame = await socket.next();
    expect(frame).toMatchObject({ type: 'notification', cursor: expect.any(String) });
    expect(firstId(frame)).toBe(id);
  });

  it('when a message is deleted, or its recipient removed, after its event was recorded, then a replay hands out nothing of it', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const [probe, ready] = await connect(reader);
    probe.ws.close();
    await probe.closed;

    const kept = await send(author, reader, 'kept qzkeptword');
    const deleted = await send(author, reader, 'deleted later qzdeletedword');
    const removed = await send(author, reader, 'removed later qzremovedword');
    // A reply to the deleted message: its context must not show the deleted parent either.
    const reply = await postMessage(api, author.token, {
      content: 'a reply to what goes',
      parent_id: deleted,
      recipients: [reader.tag],
    });
    const deleting = await api.request('DELETE', `/v1/messages/${deleted}`, { token: author.token });
    expect(deleting.status).toBe(200);
    const removing = await api.request('DELETE', '/v1/recipients/remove', {
      token: author.token,
      body: { message_id: removed, recipient_uid: reader.uid },
    });
    expect(removing.status).toBe(200);
    const marker = await send(author, reader, 'marker');

    const [socket] = await connect(reader, { since: ready.cursor as string });
    const frames = await framesUntil(socket, marker);
    const text = JSON.stringify(frames);
    expect(text).toContain('qzkeptword');
    expect(text).not.toContain('qzdeletedword');
    expect(text).not.toContain('qzremovedword');
    // Nothing about the removed recipient's message at all; the deleted one only by id, as deleted.
    expect(text).not.toContain(removed);
    const told = frames.map((f) => eventOf(f));
    expect(told.filter((e) => e.type === 'sent').map((e) => e.content.messages!.map((m) => m.id))).toEqual([
      [kept],
      [reply.id],
    ]);
    for (const event of told) {
      for (const m of [...(event.content.messages ?? []), ...(event.content.context ?? [])])
        expect(m.id).not.toBe(deleted);
    }
    expect(told.filter((e) => e.type === 'message.deleted').map((e) => e.content)).toEqual([
      { message_ids: [deleted] },
    ]);
  });
});

describe('GET /v1/ws/v1 — message.updated and message.deleted', () => {
  it('when tags of a message the user can see change, then message.updated; when it is deleted, then message.deleted; a stranger hears neither', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const stranger = await registerWriter(api);
    const [socket] = await connect(reader);
    const [strangerSocket] = await connect(stranger);
    const id = await send(author, reader, 'tag me');
    expect(firstId(await socket.next())).toBe(id);

    const tagged = await api.request('PATCH', `/v1/messages/${id}/tags`, {
      token: author.token,
      body: { tags: ['urgent'] },
    });
    expect(tagged.status).toBe(200);
    const updated = await socket.next();
    expect(updated).toEqual({
      type: 'notification',
      cursor: expect.any(String),
      event: {
        type: 'message.updated',
        recipient_uid: reader.uid,
        content: {
          messages: [
            { id, content: 'tag me', parent_id: null, author: { uid: author.uid, user_tag: author.tag } },
          ],
          context: [],
          changes: ['tags'],
        },
      },
    });

    const deleting = await api.request('DELETE', `/v1/messages/${id}`, { token: author.token });
    expect(deleting.status).toBe(200);
    const deleted = await socket.next();
    expect(deleted).toEqual({
      type: 'notification',
      cursor: expect.any(String),
      event: { type: 'message.deleted', recipient_uid: reader.uid, content: { message_ids: [id] } },
    });
    expect(new Set([updated.cursor, deleted.cursor]).size).toBe(2);

    strangerSocket.send({ type: 'ping' });
    expect(await strangerSocket.next()).toEqual({ type: 'pong' });
  });
});

describe('GET /v1/ws/v1 — cursors across a restart', () => {
  it('when the server is stopped and a new one started on the same database, then a cursor taken before resumes with exactly the events after it', async () => {
    const first = await startTestServer();
    let firstOpen = true;
    let second: TestServer | undefined;
    try {
      const author = await registerWriter(first);
      const reader = await registerWriter(first);
      const socket = await openSocket(first, { token: reader.token });
      const ready = await socket.next();
      expect(ready).toMatchObject({ type: 'ready', cursor: expect.any(String) });
      const before = await postMessage(first, author.token, {
        content: 'before the restart',
        recipients: [reader.tag],
      });
      const heard = await socket.next();
      expect(firstId(heard)).toBe(before.id);

      firstOpen = false;
      await first.close();
      expect((await closeOf(socket)).code).toBe(1001);

      second = await startTestServer();
      const after: string[] = [];
      for (const content of ['after the restart 1', 'after the restart 2'])
        after.push((await postMessage(second, author.token, { content, recipients: [reader.tag] })).id);

      const resumed = await openSocket(second, {
        token: reader.token,
        query: { since: heard.cursor as string },
      });
      expect(await resumed.next()).toMatchObject({ type: 'ready', uid: reader.uid });
      const frames = [await resumed.next(), await resumed.next()];
      expect(frames.map(firstId)).toEqual(after);
      resumed.send({ type: 'ping' });
      expect(await resumed.next()).toEqual({ type: 'pong' });

      // The ready cursor of the first server works too, and the event before the restart keeps its cursor.
      const fromReady = await openSocket(second, {
        token: reader.token,
        query: { since: ready.cursor as string },
      });
      expect(await fromReady.next()).toMatchObject({ type: 'ready', uid: reader.uid });
      expect(await fromReady.next()).toEqual(heard);
      expect(await fromReady.next()).toEqual(frames[0]);
      expect(await fromReady.next()).toEqual(frames[1]);
      fromReady.send({ type: 'ping' });
      expect(await fromReady.next()).toEqual({ type: 'pong' });
      resumed.ws.close();
      fromReady.ws.close();
      await Promise.all([resumed.closed, fromReady.closed]);
    } finally {
      if (firstOpen) await first.close();
      await second?.close();
    }
  });
});

describe('GET /v1/ws/v1 — heartbeats and bounds', () => {
  it('when the session is revoked while connected, then the next heartbeat closes the socket with 4401', async () => {
    tuneRealtime(api, { heartbeatSeconds: 1 });
    try {
      const user = await registerWriter(api);
      const [socket] = await connect(user);
      expect((await api.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);
      expect(await socket.next()).toEqual({
        type: 'error',
        code: 'invalid_session',
        detail: expect.any(String),
      });
      expect(await closeOf(socket)).toEqual({ code: 4401, reason: 'invalid_session' });
    } finally {
      tuneRealtime(api, { heartbeatSeconds: 30 });
    }
  });

  it('when one of several sockets’ credentials is revoked, then only that socket closes; the re-checks read together keep the others open', async () => {
    tuneRealtime(api, { heartbeatSeconds: 1 });
    try {
      const author = await registerWriter(api);
      const stayers = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
      const leaving = await registerWriter(api);
      const keyOwner = await registerWriter(api, { apiAccess: true });
      const { key, key_id } = await createKey(api, keyOwner.token);
      const open = await Promise.all(stayers.map(async (user) => (await connect(user))[0]));
      const [leavingSocket] = await connect(leaving);
      const keySocket = await openSocket(api, { headers: { 'x-api-key': key } });
      expect((await keySocket.next()).type).toBe('ready');

      expect((await api.request('POST', '/v1/auth/logout', { token: leaving.token })).status).toBe(200);
      const revoked = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: keyOwner.token });
      expect(revoked.status).toBeLessThan(300);
      expect(await closeOf(leavingSocket)).toEqual({ code: 4401, reason: 'invalid_session' });
      expect(await keySocket.next()).toEqual({
        type: 'error',
        code: 'invalid_api_key',
        detail: expect.any(String),
      });
      expect(await closeOf(keySocket)).toEqual({ code: 4401, reason: 'invalid_api_key' });

      // Two more heartbeats re-check the others, then each still hears a message sent to it.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      for (const [i, user] of stayers.entries()) {
        const id = await send(author, user, `still here ${i}`);
        const frame = await open[i]!.next();
        expect(frame.type).toBe('notification');
        expect(firstId(frame)).toBe(id);
      }
    } finally {
      tuneRealtime(api, { heartbeatSeconds: 30 });
    }
  });

  it('when realtime.connect is taken away while connected, then the next heartbeat closes the socket with 4403', async () => {
    tuneRealtime(api, { heartbeatSeconds: 1 });
    try {
      const user = await registerWriter(api);
      const [socket] = await connect(user);
      await grant(api, user.uid, { scopes: ['messages.read', 'messages.write'] });
      expect(await closeOf(socket)).toEqual({ code: 4403, reason: 'insufficient_scope' });
    } finally {
      tuneRealtime(api, { heartbeatSeconds: 30 });
    }
  });

  it('when the client does not answer the server’s pings, then the server cuts the connection', async () => {
    tuneRealtime(api, { heartbeatSeconds: 1 });
    try {
      const user = await registerWriter(api);
      const socket = await openSocket(api, { token: user.token, autoPong: false });
      expect(await socket.next()).toMatchObject({ type: 'ready' });
      // Cut without a close frame: the client sees an abnormal closure.
      expect((await closeOf(socket)).code).toBe(1006);
    } finally {
      tuneRealtime(api, { heartbeatSeconds: 30 });
    }
  });

  it('when the client stops reading while notifications pile up, then it is closed as a slow consumer', async () => {
    tuneRealtime(api, { maxBufferedBytes: 64 * 1024 });
    try {
      const author = await registerWriter(api);
      const reader = await registerWriter(api);
      // Ten public 60 kB messages in a reply chain: each reply to its leaf carries them as context,
      // so every notification is cut to the event budget (SKEIN_EVENT_MAX_BYTES, 256 kB).
      const big = 'x'.repeat(60_000);
      const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
        token: author.token,
        body: { messages: Array.from({ length: 10 }, () => ({ content: big, public: true })) },
      });
      expect(res.status).toBe(200);
      const leaf = res.body.at(-1)!.message.id;

      const [socket, ready] = await connect(reader);
      socket.stopReading();
      // ~10 MB: more than the kernel's socket buffers on both ends plus the 64 kB bound.
      const posts = 40;
      const replies: string[] = [];
      for (let i = 0; i < posts; i++) {
        const reply = await postMessage(api, author.token, {
          content: `reply ${i}`,
          parent_id: leaf,
          recipients: [reader.tag],
        });
        replies.push(reply.id);
      }
      socket.resumeReading();
      const frames: Frame[] = [];
      const closed = closeOf(socket, 30_000);
      for (;;) {
        const frame = await socket.next(30_000).catch(() => null);
        if (frame === null) break;
        frames.push(frame);
      }
      expect(await closed).toEqual({ code: 4008, reason: 'slow_consumer' });
      expect(frames.at(-1)).toEqual({ type: 'error', code: 'slow_consumer', detail: expect.any(String) });
      // It was cut off before everything was sent; what it got is in order, so since resumes it.
      const notes = frames.filter((f) => f.type === 'notification');
      expect(notes.length).toBeLessThan(posts);
      expect(notes.map(firstId)).toEqual(replies.slice(0, notes.length));

      tuneRealtime(api, { maxBufferedBytes: 1024 * 1024 });
      const since = (notes.at(-1)?.cursor ?? ready.cursor) as string;
      const [again] = await connect(reader, { since });
      const rest: Frame[] = [];
      for (let i = notes.length; i < posts; i++) rest.push(await again.next());
      expect(rest.map(firstId)).toEqual(replies.slice(notes.length));
      again.send({ type: 'ping' });
      expect(await again.next()).toEqual({ type: 'pong' });
    } finally {
      tuneRealtime(api, { maxBufferedBytes: 1024 * 1024 });
    }
  });
});

describe('GET /v1/ws/v1 — sockets per user', () => {
  it('when a user opens a 21st socket on one instance, then it is refused with 4429 rate_limited; others are unaffected and a closed socket frees its place', async () => {
    expect(api.ctx.config.realtime.maxSocketsPerUser).toBe(20);
    const user = await registerWriter(api);
    const sockets: TestSocket[] = [];
    for (let i = 0; i < 20; i++) sockets.push((await connect(user))[0]);
    await expectRefusal(await openSocket(api, { token: user.token }), 4429, 'rate_limited');
    // Another user is not limited by this one's sockets, and the twenty still work.
    await connect(await registerWriter(api));
    sockets[19]!.send({ type: 'ping' });
    expect(await sockets[19]!.next()).toEqual({ type: 'pong' });

    sockets[0]!.ws.close();
    await sockets[0]!.closed;
    // The server counts the socket out once it has seen the close.
    for (let attempt = 0; ; attempt++) {
      const socket = await openSocket(api, { token: user.token });
      const first = await socket.next();
      if (first.type === 'ready') break;
      expect(first).toMatchObject({ type: 'error', code: 'rate_limited' });
      expect(attempt).toBeLessThan(50);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('when SKEIN_WS_MAX_SOCKETS_PER_USER is set, then the cap follows it', async () => {
    const capped = await startTestServer({ SKEIN_WS_MAX_SOCKETS_PER_USER: '2' });
    try {
      const user = await registerWriter(capped);
      for (let i = 0; i < 2; i++) {
        const socket = await openSocket(capped, { token: user.token });
        expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid });
      }
      await expectRefusal(await openSocket(capped, { token: user.token }), 4429, 'rate_limited');
    } finally {
      closeAllSockets();
      await capped.close();
    }
  });
});

describe('GET /v1/ws/v1 and graphql-ws — sockets per client address (security finding #12)', () => {
  it('when one address holds the cap of sockets across accounts, then the next from it is refused with 4429 and another address is not', async () => {
    const capped = await startTestServer({
      SKEIN_TRUST_PROXY: 'true',
      SKEIN_WS_MAX_SOCKETS_PER_ADDRESS: '3',
    });
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const users: TestUser[] = [];
    for (let i = 0; i < 5; i++) users.push(await registerWriter(capped));
    const subscriber = createClient({
      url: socketUrl(capped, '/graphql'),
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, {
            headers: { ...from('203.0.113.7'), authorization: `Bearer ${users[2]!.token}` },
          });
        }
      },
      retryAttempts: 0,
      lazy: true,
    });
    try {
      // Two sockets and one subscription, each a different account, from one address.
      for (const user of users.slice(0, 2)) {
        const socket = await openSocket(capped, { token: user.token, headers: from('203.0.113.7') });
        expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid });
      }
      const subscription = subscriber.iterate({ query: 'subscription { notifications { id } }' });
      const heard = subscription.next();
      // The subscription is open (and counted) once it hears a post; posts made before it opened
      // are not live for it, so post until one is heard.
      let done = false;
      void heard.then(() => (done = true));
      for (let attempt = 0; !done; attempt++) {
        expect(attempt).toBeLessThan(50);
        await postMessage(capped, users[4]!.token, {
          content: `hello ${attempt}`,
          recipients: [users[2]!.tag],
        });
        await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, 200))]);
      }
      await expectRefusal(
        await openSocket(capped, { token: users[3]!.token, headers: from('203.0.113.7') }),
        4429,
        'rate_limited',
      );
      const elsewhere = await openSocket(capped, { token: users[3]!.token, headers: from('198.51.100.9') });
      expect(await elsewhere.next()).toMatchObject({ type: 'ready', uid: users[3]!.uid });
    } finally {
      await subscriber.dispose();
      closeAllSockets();
      await capped.close();
    }
  });
});

describe('shutting down', () => {
  it('when the realtime server closes, then its sockets get 1001 server_shutdown and the HTTP server can close', async () => {
    // A bare HTTP server with only the WebSocket endpoints, on the test server's context.
    const server = createServer((_req, res) => res.writeHead(404).end());
    const realtime = attachRealtime(server, api.ctx, buildSchema([realtimeResolvers]));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const bare = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const user = await registerWriter(api);
    const socket = await openSocket(bare, { token: user.token });
    expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid });

    await realtime.close();
    expect(await closeOf(socket)).toEqual({ code: 1001, reason: 'server_shutdown' });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // No longer upgraded once closed.
    await expect(openSocket(bare, { token: user.token })).rejects.toThrow();
  });
});
