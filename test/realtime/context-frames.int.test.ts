// Socket frames and subscription events that carry each new message's conversation context (issue
// 41 item 3, decision 028): /v1/ws/v1?include_context=true and Subscription.notifications(
// include_context: true). Each message of a new-message event then carries `message_context`,
// exactly what GET /v1/messages/{id}/context answers the listener, never anything it may not see;
// without the switch the frames are as they were.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { createChannel, registerChannelOwner } from '../threads/thread-fixtures.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { readsDuring } from '../support/statement-reads.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket, socketUrl, type Frame, type TestSocket } from '../support/ws-client.js';

interface FrameMessage {
  id: string;
  content: string;
  message_context?: { message_id: string; entries: { id: string; content: string }[]; truncated: boolean };
}

interface NotificationFrame {
  type: 'notification';
  cursor: string;
  event: { type: string; content: { messages: FrameMessage[] } };
}

let api: TestServer;
const clients: Client[] = [];
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await Promise.all(clients.map((made) => Promise.resolve(made.dispose())));
  closeAllSockets();
  await api.close();
});

function contextAs(user: TestUser, messageId: string) {
  return api.request<Record<string, unknown>>('GET', `/v1/messages/${messageId}/context`, {
    token: user.token,
  });
}

/** A socket of the user, past its ready frame. */
async function listen(user: TestUser, query: Record<string, string> = {}): Promise<TestSocket> {
  const socket = await openSocket(api, { token: user.token, query });
  expect((await socket.next()).type).toBe('ready');
  return socket;
}

async function nextNotification(socket: TestSocket): Promise<NotificationFrame> {
  const frame: Frame = await socket.next();
  expect(frame.type).toBe('notification');
  return frame as unknown as NotificationFrame;
}

describe('/v1/ws/v1?include_context=true', () => {
  it('when a reply reaches a socket that asked for contexts, then each new message carries the context GET /v1/messages/{id}/context answers the listener', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const socket = await listen(bob, { include_context: 'true' });
    const root = await postMessage(api, alice.token, { content: 'how was the trip?', recipients: [bob.tag] });
    const first = await nextNotification(socket);
    const reply = await postMessage(api, bob.token, {
      content: 'long, but fine',
      parent_id: root.id,
      recipients: [alice.tag],
    });
    const question = await postMessage(api, alice.token, {
      content: 'and the food?',
      parent_id: reply.id,
      recipients: [bob.tag],
    });
    const second = await nextNotification(socket);

    expect(first.event.content.messages[0]!.message_context).toEqual((await contextAs(bob, root.id)).body);
    const [message] = second.event.content.messages;
    expect(message!.id).toBe(question.id);
    expect(message!.message_context).toEqual((await contextAs(bob, question.id)).body);
    expect(message!.message_context!.entries.map((e) => [e.content, (e as { role?: string }).role])).toEqual([
      ['how was the trip?', 'user'],
      ['long, but fine', 'assistant'],
      ['and the food?', 'user'],
    ]);
  });

  it('when the listener cannot see the parent, then the frame’s context leaves the parent (and what is above it) out', async () => {
    const [alice, bob, carol] = [
      await registerWriter(api),
      await registerWriter(api),
      await registerWriter(api),
    ];
    const socket = await listen(bob, { include_context: '1' });
    const hidden = await postMessage(api, alice.token, {
      content: 'only for carol',
      recipients: [carol.tag],
    });
    const toBob = await postMessage(api, alice.token, {
      content: 'bob, see below',
      parent_id: hidden.id,
      recipients: [bob.tag],
    });
    const frame = await nextNotification(socket);
    const [message] = frame.event.content.messages;
    expect(message!.id).toBe(toBob.id);
    expect(message!.message_context!.entries.map((e) => e.id)).toEqual([toBob.id]);
    expect(JSON.stringify(frame)).not.toContain('only for carol');
  });

  it('when a channel post reaches several members, then the member who asked gets its own context in the frame, and a member without the switch gets none', async () => {
    const owner = await registerChannelOwner(api);
    const [bob, dan] = [await registerWriter(api), await registerWriter(api)];
    const channelId = await createChannel(api, owner, [bob, dan]);
    const withContext = await listen(bob, { include_context: 'true' });
    const without = await listen(dan);
    const post = await postMessage(api, owner.token, { content: 'standup in 5', channel_ids: [channelId] });

    const bobs = await nextNotification(withContext);
    const dans = await nextNotification(without);
    expect(bobs.event.type).toBe('channels');
    expect(bobs.event.content.messages[0]!.message_context).toEqual((await contextAs(bob, post.id)).body);
    expect(dans.event.content.messages[0]).not.toHaveProperty('message_context');
  });

  it('when a message the listener got is edited, then the message.updated frame carries no context', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const socket = await listen(bob, { include_context: 'true' });
    const posted = await postMessage(api, alice.token, { content: 'draft', recipients: [bob.tag] });
    expect((await nextNotification(socket)).event.content.messages[0]).toHaveProperty('message_context');
    const tagged = await api.request('PATCH', `/v1/messages/${posted.id}/tags`, {
      token: alice.token,
      body: { tags: ['later'] },
    });
    expect(tagged.status).toBe(200);
    const updated = await nextNotification(socket);
    expect(updated.event.type).toBe('message.updated');
    expect(updated.event.content.messages[0]).not.toHaveProperty('message_context');
  });

  it('when the socket is opened without the switch, then frames carry no message_context', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const socket = await listen(bob);
    const root = await postMessage(api, alice.token, { content: 'plain', recipients: [bob.tag] });
    await postMessage(api, alice.token, {
      content: 'plain reply',
      parent_id: root.id,
      recipients: [bob.tag],
    });
    for (const frame of [await nextNotification(socket), await nextNotification(socket)]) {
      expect(Object.keys(frame.event.content.messages[0]!).sort()).toEqual([
        'author',
        'content',
        'id',
        'parent_id',
      ]);
    }
  });

  it('when a socket replays from a cursor with the switch, then the replayed frames carry contexts too', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const since = await readyCursor(bob);
    const posted = await postMessage(api, alice.token, { content: 'sent while away', recipients: [bob.tag] });
    const resumed = await listen(bob, { include_context: 'true', since });
    const replayed = await nextNotification(resumed);
    expect(replayed.event.content.messages[0]!.id).toBe(posted.id);
    expect(replayed.event.content.messages[0]!.message_context).toEqual(
      (await contextAs(bob, posted.id)).body,
    );
  });

  it('when include_context is not a boolean, then the socket closes with 4400 validation_error', async () => {
    const bob = await registerWriter(api);
    const socket = await openSocket(api, { token: bob.token, query: { include_context: 'yes' } });
    const frame = await socket.next();
    expect(frame).toMatchObject({ type: 'error', code: 'validation_error' });
    expect(await socket.closed).toEqual({ code: 4400, reason: 'validation_error' });
  });
});

describe('subscription notifications(include_context)', () => {
  const FOLLOW = /* GraphQL */ `
    subscription Follow($since: String, $include_context: Boolean) {
      notifications(since: $since, include_context: $include_context) {
        cursor
        event {
          type
          content {
            messages {
              id
              message_context {
                message_id
                truncated
                entries {
                  id
                  part
                  role
                  author {
                    uid
                    user_tag
                    is_bot
                  }
                  content
                  timestamp
                  attachments {
                    file_id
                  }
                }
              }
            }
          }
        }
      }
    }
  `;

  interface Followed {
    notifications: {
      cursor: string;
      event: { content: { messages: { id: string; message_context: Record<string, unknown> | null }[] } };
    };
  }

  function subscribe(
    user: TestUser,
    variables: Record<string, unknown>,
  ): AsyncIterableIterator<{ data?: Followed | null }> {
    const made = createClient({
      url: socketUrl(api, '/graphql'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${user.token}` },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(made);
    return made.iterate<Followed>({ query: FOLLOW, variables });
  }

  async function nextValue(iterator: AsyncIterableIterator<{ data?: Followed | null }>): Promise<Followed> {
    const result = await iterator.next();
    if (result.done || !result.value.data)
      throw new Error(`the subscription ended: ${JSON.stringify(result)}`);
    return result.value.data;
  }

  it('when a subscription asks for contexts, then each new message carries the listener’s context; without the argument it is null', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    // Both subscriptions start from the position now, so the messages posted next are not missed.
    const since = await readyCursor(bob);
    const asking = subscribe(bob, { since, include_context: true });
    const plain = subscribe(bob, { since });
    const root = await postMessage(api, alice.token, { content: 'over graphql', recipients: [bob.tag] });
    const reply = await postMessage(api, alice.token, {
      content: 'with its parent',
      parent_id: root.id,
      recipients: [bob.tag],
    });

    const read = (await contextAs(bob, reply.id)).body as { entries: { attachments: unknown[] }[] };
    const expected = { ...read, entries: read.entries.map((e) => ({ ...e, attachments: [] })) };
    await nextValue(asking);
    const withContext = await nextValue(asking);
    expect(withContext.notifications.event.content.messages).toEqual([
      { id: reply.id, message_context: expected },
    ]);
    await nextValue(plain);
    const without = await nextValue(plain);
    expect(without.notifications.event.content.messages).toEqual([{ id: reply.id, message_context: null }]);
    await asking.return?.();
    await plain.return?.();
  });
});

/** The position now: the cursor of a ready frame (the socket is closed again). */
async function readyCursor(user: TestUser): Promise<string> {
  const socket = await openSocket(api, { token: user.token });
  const ready = await socket.next();
  expect(ready.type).toBe('ready');
  socket.ws.close();
  return ready.cursor as string;
}

describe('what contexts in deliveries cost (security review 2026-12-02, finding 3)', () => {
  /** How many context statements `api` runs while `work` runs. */
  const contextReadsDuring = (work: () => Promise<unknown>) =>
    readsDuring(api.ctx.db, (name) => (name === 'context/read-context' ? 1 : 0), work);

  it('when one account holds many sockets that asked for contexts, then each message’s context is read once for all of them, and only for the first ten messages of an event', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const sockets: TestSocket[] = [];
    for (let i = 0; i < 8; i++) sockets.push(await listen(bob, { include_context: 'true' }));
    const root = await postMessage(api, alice.token, { content: 'the question', recipients: [bob.tag] });
    for (const socket of sockets) await nextNotification(socket);

    const replies = Array.from({ length: 12 }, (_, i) => ({
      content: `part ${i}`,
      parent_id: root.id,
      recipients: [bob.tag],
    }));
    const frames: NotificationFrame[] = [];
    const reads = await contextReadsDuring(async () => {
      const posted = await api.request('POST', '/v1/messages', {
        token: alice.token,
        body: { messages: replies },
      });
      expect(posted.status).toBe(200);
      for (const socket of sockets) frames.push(await nextNotification(socket));
    });
    // Twelve messages to eight sockets: ten reads, not 96.
    expect(reads).toBe(10);
    for (const frame of frames) {
      const messages = frame.event.content.messages;
      expect(messages).toHaveLength(12);
      expect(messages.filter((m) => m.message_context !== undefined)).toHaveLength(10);
      expect(messages.slice(0, 10).every((m) => m.message_context?.message_id === m.id)).toBe(true);
      expect(messages.slice(10).some((m) => 'message_context' in m)).toBe(false);
    }
    expect(frames.every((frame) => JSON.stringify(frame) === JSON.stringify(frames[0]))).toBe(true);
    for (const socket of sockets) socket.ws.close();
  });
});
