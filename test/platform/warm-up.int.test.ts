// The warm-up (src/components/warm-up, decision 035): before it listens, the service rehearses its
// hot paths through its own use cases, in transactions that are rolled back. Whatever it rehearses,
// nobody may ever see it: no message, user, session, event or frame lands, on a store with messages
// (posts as the newest message's author) or without (posts in a world made inside the rehearsal).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rehearseRound, warmUp } from '../../src/components/warm-up/warm-up.js';
import { channelWith, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { freePort } from '../support/test-neo4j.js';
import { startServiceProcess } from '../support/service-process.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { openSocket, type Frame, type TestSocket } from '../support/ws-client.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

async function listen(user: TestUser): Promise<TestSocket> {
  const socket = await openSocket(api, { token: user.token });
  expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid });
  return socket;
}

/** The frames a socket got before the notification of `messageId` (which must come). */
async function framesBefore(socket: TestSocket, messageId: string): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const frame = await socket.next();
    const event = frame.event as { content?: { messages?: { id: string }[] } } | undefined;
    if (frame.type === 'notification' && event?.content?.messages?.some((m) => m.id === messageId))
      return frames;
    frames.push(frame);
  }
}

async function notificationsSince(user: TestUser, cursor: string): Promise<unknown[]> {
  const res = await api.request<{ notifications: unknown[] }>('GET', `/v1/notifications?since=${cursor}`, {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.notifications;
}

async function cursorOf(user: TestUser): Promise<string> {
  const res = await api.request<{ cursor: string }>('GET', '/v1/notifications', { token: user.token });
  expect(res.status).toBe(200);
  return res.body.cursor;
}

describe('the warm-up before the service listens', () => {
  it('when it rehearses on a store with messages, then nothing it did can be seen', async () => {
    const [author, reader, marker] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    await channelWith(api, author, [reader]);
    // The newest message of the store, most likely: the warm-up posts and reads as its author.
    await postMessage(api, author.token, {
      content: 'the last word before a restart',
      recipients: [reader.tag],
    });
    const sessionsBefore = await api.request<{ sessions: unknown[] }>('GET', '/v1/auth/sessions', {
      token: author.token,
    });
    const [authorCursor, readerCursor] = await Promise.all([cursorOf(author), cursorOf(reader)]);
    const [authorSocket, readerSocket] = await Promise.all([listen(author), listen(reader)]);

    const report = await warmUp(api.ctx, 1);
    expect(report).toMatchObject({ error: null });
    expect(report.rounds).toBeGreaterThanOrEqual(1);

    // Events and frames leave in order: anything the warm-up had sent would come before this.
    const after = await postMessage(api, marker.token, {
      content: 'after the warm-up',
      recipients: [author.tag, reader.tag],
    });
    expect(await framesBefore(authorSocket, after.id)).toEqual([]);
    expect(await framesBefore(readerSocket, after.id)).toEqual([]);
    const authorEvents = (await notificationsSince(author, authorCursor)) as { event: { type: string } }[];
    expect(authorEvents).toHaveLength(1);
    expect(await notificationsSince(reader, readerCursor)).toHaveLength(1);

    const sessionsAfter = await api.request<{ sessions: unknown[] }>('GET', '/v1/auth/sessions', {
      token: author.token,
    });
    expect(sessionsAfter.body.sessions).toEqual(sessionsBefore.body.sessions);
    const found = await api.request<{ messages: unknown[] }>('GET', '/v1/messages/search?q=warm-up%20round', {
      token: reader.token,
    });
    expect(found.body.messages).toEqual([]);
    const inbox = await api.request<{ messages: { id: string }[] }>('GET', '/v1/messages/inbox', {
      token: reader.token,
    });
    expect(inbox.body.messages[0]?.id).toBe(after.id);
    expect(await api.ctx.db.read('warm-up/sample-message')).toHaveLength(1);
    const rehearsed = await api.ctx.db.runText(
      "MATCH (n) WHERE n.tag STARTS WITH 'warm-up-' OR n.content STARTS WITH 'warm-up round' RETURN count(n) AS n",
    );
    expect(rehearsed).toEqual([{ n: 0 }]);
  });

  it('when it rehearses as on an empty store (in a world of its own), then nothing of that world lands', async () => {
    const [watcher, marker] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const socket = await listen(watcher);

    await rehearseRound(api.ctx, null, 0);

    const after = await postMessage(api, marker.token, {
      content: 'after the world',
      recipients: [watcher.tag],
    });
    expect(await framesBefore(socket, after.id)).toEqual([]);
    const users = await api.request<{ users: unknown[] }>('GET', '/v1/users/search?q=warm-up', {
      token: watcher.token,
    });
    expect(users.body.users).toEqual([]);
    const rehearsed = await api.ctx.db.runText(
      "MATCH (n) WHERE n.user_tag STARTS WITH 'warm-up-' OR n.content STARTS WITH 'warm-up round' OR n.display_name = 'warm-up' RETURN count(n) AS n",
    );
    expect(rehearsed).toEqual([{ n: 0 }]);
  });

  it('when SKEIN_WARMUP_SECONDS is set, then a started process warms up before it listens', async () => {
    const port = await freePort();
    const service = await startServiceProcess({
      PORT: String(port),
      NEO4J_URI: process.env.SKEIN_TEST_NEO4J_URI!,
      NEO4J_PASSWORD: process.env.SKEIN_TEST_NEO4J_PASSWORD!,
      SKEIN_DATA_DIR: `/tmp/skein-warm-up-${port}`,
      SKEIN_WARMUP_SECONDS: '1',
      LOG_LEVEL: 'info',
    });
    try {
      const lines = service
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"warmed up"') || line.includes('"msg":"Skein is listening'));
      expect(lines).toHaveLength(2);
      // Warmed up first, then listening.
      expect(lines[0]).toContain('warmed up');
      expect((JSON.parse(lines[0]!) as { rounds: number }).rounds).toBeGreaterThanOrEqual(1);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      service.kill('SIGTERM');
      await service.exited;
    }
  });
});
