// GET /v1/ws/v1: authentication and refusals, frames, live delivery, replay with since, heartbeats,
// the slow-consumer bound.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { attachRealtime } from '../../src/components/events/realtime-server.js';
import { realtimeResolvers } from '../../src/components/events/realtime.resolvers.js';
import { buildSchema } from '../../src/platform/graphql/graphql-server.js';
import { grant, postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
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
  expect(ready).toEqual({ type: 'ready', uid: user.uid, seq: expect.any(Number) });
  return [socket, ready];
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
  it('when the token comes in the Authorization header, then the first frame is ready with uid and seq 0', async () => {
    const user = await registerWriter(api);
    const [, ready] = await connect(user);
    expect(ready.seq).toBe(0);
  });

  it('when the token comes as the access_token query parameter, then ready', async () => {
    const user = await registerWriter(api);
    const socket = await openSocket(api, { query: { access_token: user.token } });
    expect(await socket.next()).toEqual({ type: 'ready', uid: user.uid, seq: 0 });
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

  it('when since is not a whole number, then close 4400 validation_error', async () => {
    const user = await registerWriter(api);
    const socket = await openSocket(api, { token: user.token, query: { since: '-1' } });
    await expectRefusal(socket, 4400, 'validation_error');
  });

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
    expect(await socket.next()).toEqual({
      type: 'notification',
      seq: (ready.seq as number) + 1,
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
  it('when the client reconnects with since, then exactly the missed notifications in order, then live ones', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    await send(author, reader, 'seen before');
    const [first, ready] = await connect(reader);
    const seen = ready.seq as number;
    expect(seen).toBe(1);
    first.ws.close();
    await first.closed;

    const missed = [];
    for (const content of ['missed a', 'missed b', 'missed c'])
      missed.push(await send(author, reader, content));

    const [second, again] = await connect(reader, { since: String(seen) });
    expect(again.seq).toBe(seen + 3);
    for (const [index, id] of missed.entries()) {
      const frame = await second.next();
      expect(frame).toMatchObject({ type: 'notification', seq: seen + 1 + index });
      expect((frame.event as { content: { messages: { id: string }[] } }).content.messages[0]!.id).toBe(id);
    }
    const later = await send(author, reader, 'live after replay');
    const live = await second.next();
    expect(live).toMatchObject({ type: 'notification', seq: seen + 4 });
    expect((live.event as { content: { messages: { id: string }[] } }).content.messages[0]!.id).toBe(later);
  });

  it('when more than a page is missed and posts keep coming during the replay, then every seq once, in order', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const before = 52; // more than one replay page (50)
    for (let i = 0; i < before; i++) await send(author, reader, `backlog ${i}`);
    const [socket] = await connect(reader, { since: '0' });
    const during = 4;
    const posting = (async () => {
      for (let i = 0; i < during; i++) await send(author, reader, `during ${i}`);
    })();
    const seqs: number[] = [];
    for (let i = 0; i < before + during; i++) seqs.push((await socket.next()).seq as number);
    await posting;
    expect(seqs).toEqual(Array.from({ length: before + during }, (_, i) => i + 1));
    socket.send({ type: 'ping' });
    expect(await socket.next()).toEqual({ type: 'pong' });
  });

  it('when since is beyond the latest seq, then it counts as the latest and the next notification still arrives', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const [socket, ready] = await connect(reader, { since: '999' });
    expect(ready.seq).toBe(0);
    await send(author, reader);
    expect(await socket.next()).toMatchObject({ type: 'notification', seq: 1 });
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
      // so every notification is about 600 kB.
      const big = 'x'.repeat(60_000);
      const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
        token: author.token,
        body: { messages: Array.from({ length: 10 }, () => ({ content: big, public: true })) },
      });
      expect(res.status).toBe(200);
      const leaf = res.body.at(-1)!.message.id;

      const [socket] = await connect(reader);
      socket.stopReading();
      // ~10 MB: more than the kernel's socket buffers on both ends plus the 64 kB bound.
      const posts = 16;
      for (let i = 0; i < posts; i++) {
        await postMessage(api, author.token, {
          content: `reply ${i}`,
          parent_id: leaf,
          recipients: [reader.tag],
        });
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
      const seqs = frames.filter((f) => f.type === 'notification').map((f) => f.seq as number);
      expect(seqs.length).toBeLessThan(posts);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    } finally {
      tuneRealtime(api, { maxBufferedBytes: 1024 * 1024 });
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
