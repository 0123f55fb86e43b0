// No frame of megabytes from a request of bytes (security review 2026-12-02, finding 2): every event
// stays within SKEIN_EVENT_MAX_BYTES of JSON (256 KiB by default) in every transport: the socket,
// graphql-ws, webhook bodies and GET /v1/notifications. The review's reproductions: a reply under
// ten ancestors of 65,536 × U+0001 (six bytes each in JSON) made a 3.84 MiB frame from its
// `content.context`; twelve small replies with include_context=true an 8.47 MiB one; each closed
// the socket with 4008, again at each resume from the cursor before it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { closeAllSockets, openSocket, socketUrl, type Frame, type TestSocket } from '../support/ws-client.js';
import { botWithEndpoint } from '../webhooks/webhook-helpers.js';

const BUDGET = 256 * 1024;
/** 65,536 characters that JSON writes as \u0001: 393,216 bytes each. */
const HEAVY = '\u0001'.repeat(65_536);
/** 10,000 of them: 60,000 bytes, so that a few ancestors fit and the rest do not. */
const MEDIUM = '\u0001'.repeat(10_000);

interface EventMessage {
  id: string;
  content: string;
  content_truncated?: true;
  message_context?: { message_id: string; entries: { id: string }[]; truncated: boolean };
}
interface Event {
  type: string;
  content: { messages: EventMessage[]; context: EventMessage[]; context_truncated?: true };
}
interface NotificationFrame {
  type: 'notification';
  cursor: string;
  event: Event;
}

let api: TestServer;
let receiver: WebhookReceiver;
const clients: Client[] = [];
beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: true });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await Promise.all(clients.map((made) => Promise.resolve(made.dispose())));
  closeAllSockets();
  await receiver.close();
  await api.close();
});

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** A socket of the user, past its ready frame, with that frame's cursor (the position now). */
async function listen(
  user: TestUser,
  query: Record<string, string> = {},
): Promise<TestSocket & { cursor: string }> {
  const socket = await openSocket(api, { token: user.token, query });
  const ready = await socket.next();
  expect(ready.type).toBe('ready');
  return Object.assign(socket, { cursor: ready.cursor as string });
}

async function nextNotification(socket: TestSocket): Promise<NotificationFrame> {
  const frame: Frame = await socket.next();
  expect(frame.type).toBe('notification');
  return frame as unknown as NotificationFrame;
}

/** Ten messages from `author` to `reader`, each a reply to the one before; answers their ids. */
async function heavyChain(author: TestUser, reader: TestUser, content = HEAVY): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const posted = await postMessage(api, author.token, {
      content,
      recipients: [reader.tag],
      ...(ids.length > 0 ? { parent_id: ids[ids.length - 1] } : {}),
    });
    ids.push(posted.id);
  }
  return ids;
}

describe('an event over the budget', () => {
  it('when a small reply has ten long ancestors, then the socket frame keeps the nearest that fit, says so, and the socket stays open and resumes', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const chain = await heavyChain(alice, bob, MEDIUM);
    const socket = await listen(bob);
    const before = socket.cursor;
    const reply = await postMessage(api, alice.token, {
      content: 'a short reply',
      parent_id: chain[9],
      recipients: [bob.tag],
    });
    const frame = await nextNotification(socket);
    expect(bytesOf(frame)).toBeLessThan(BUDGET + 1024);
    expect(frame.event.content.messages.map((m) => m.id)).toEqual([reply.id]);
    expect(frame.event.content.context_truncated).toBe(true);
    const kept = frame.event.content.context.map((m) => m.id);
    // The nearest ancestors, root first, as the spec orders them; the farthest were left out.
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(10);
    expect(kept).toEqual(chain.slice(10 - kept.length));

    const after = await postMessage(api, alice.token, { content: 'still there?', recipients: [bob.tag] });
    expect((await nextNotification(socket)).event.content.messages[0]!.id).toBe(after.id);
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);

    // Resuming from the cursor before the cut event hands it out again, and the one after it.
    const resumed = await openSocket(api, { token: bob.token, query: { since: before } });
    expect((await resumed.next()).type).toBe('ready');
    const replayed = [await nextNotification(resumed), await nextNotification(resumed)];
    expect(replayed.map((f) => f.event.content.messages[0]!.id)).toEqual([reply.id, after.id]);
    expect(replayed[0]!.event.content.context_truncated).toBe(true);
    expect(resumed.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('when a batch of small replies reaches a socket that asked for contexts, then the frame stays within the budget with the contexts cut', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const chain = await heavyChain(alice, bob);
    const socket = await listen(bob, { include_context: 'true' });
    const replies = Array.from({ length: 12 }, (_, i) => ({
      content: `reply ${i}`,
      parent_id: chain[9],
      recipients: [bob.tag],
    }));
    const posted = await api.request<{ ok: boolean }[]>('POST', '/v1/messages', {
      token: alice.token,
      body: { messages: replies },
    });
    expect(posted.status).toBe(200);
    const frame = await nextNotification(socket);
    expect(bytesOf(frame)).toBeLessThan(BUDGET + 1024);
    const messages = frame.event.content.messages;
    expect(messages).toHaveLength(12);
    for (const message of messages) {
      // Each context kept is cut (never the message itself) or gone, to be read when wanted.
      if (message.message_context) {
        expect(message.message_context.truncated).toBe(true);
        expect(message.message_context.entries.at(-1)!.id).toBe(message.id);
      }
      expect(message.content).toMatch(/^reply \d+$/);
    }
    const after = await postMessage(api, alice.token, { content: 'next', recipients: [bob.tag] });
    expect((await nextNotification(socket)).event.content.messages[0]!.id).toBe(after.id);
  });

  it('when three heavy messages gain a recipient at once, then the added event cuts their contents to fit and flags each', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await postMessage(api, alice.token, { content: HEAVY })).id);
    }
    const socket = await listen(bob);
    const added = await api.request('POST', '/v1/recipients/add', {
      token: alice.token,
      body: { message_ids: ids, recipients: [bob.tag] },
    });
    expect(added.status).toBe(200);
    const frame = await nextNotification(socket);
    expect(frame.event.type).toBe('added');
    expect(bytesOf(frame)).toBeLessThan(BUDGET + 1024);
    expect(frame.event.content.messages.map((m) => m.id).sort()).toEqual([...ids].sort());
    for (const message of frame.event.content.messages) {
      expect(message.content_truncated).toBe(true);
      expect(HEAVY.startsWith(message.content)).toBe(true);
      expect(message.content.length).toBeGreaterThan(1000);
    }
  });
});

describe('the other transports', () => {
  it('when GET /v1/notifications pages over heavy events, then each is within the budget, the page within four, and paging on always makes progress', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const start = (
      await api.request<{ cursor: string }>('GET', '/v1/notifications?limit=1', { token: bob.token })
    ).body.cursor;
    const chain = await heavyChain(alice, bob);
    const seen: string[] = [];
    let cursor = start;
    for (let round = 0; round < 20; round++) {
      const page = await api.request<{
        notifications: NotificationFrame[];
        cursor: string;
        has_more: boolean;
      }>('GET', `/v1/notifications?since=${cursor}&limit=100`, { token: bob.token });
      expect(page.status).toBe(200);
      expect(bytesOf(page.body)).toBeLessThan(4 * BUDGET + 4096);
      for (const notification of page.body.notifications) {
        expect(bytesOf(notification.event)).toBeLessThan(BUDGET);
        seen.push(notification.event.content.messages[0]!.id);
      }
      if (!page.body.has_more) break;
      expect(page.body.cursor).not.toBe(cursor);
      cursor = page.body.cursor;
    }
    expect(seen).toEqual(chain);
  });

  it('when a graphql-ws subscription gets the reply under heavy ancestors (each over the budget alone), then the event is cut the same way', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const chain = await heavyChain(alice, bob);
    const client = createClient({
      url: socketUrl(api, '/graphql'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${bob.token}` },
      retryAttempts: 0,
    });
    clients.push(client);
    const events: Event[] = [];
    const received = new Promise<void>((resolve, reject) => {
      client.subscribe<{ notifications: { event: Event } }>(
        {
          query:
            'subscription { notifications { event { type content { context_truncated context { id } messages { id content } } } } }',
        },
        {
          next: (value) => {
            events.push(value.data!.notifications.event);
            resolve();
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    // The subscription is live once a first post reaches it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const reply = await postMessage(api, alice.token, {
      content: 'over graphql',
      parent_id: chain[9],
      recipients: [bob.tag],
    });
    await received;
    const [event] = events;
    expect(event!.content.messages.map((m) => m.id)).toEqual([reply.id]);
    expect(event!.content.context_truncated).toBe(true);
    expect(bytesOf(event)).toBeLessThan(BUDGET);
  });

  it('when a webhook bot gets the reply under heavy ancestors, then the signed body is within the budget and says so', async () => {
    const [alice, manager] = [await registerWriter(api), await registerWriter(api)];
    const bot = await botWithEndpoint(api, manager, receiver);
    const botUser = { tag: bot.user_tag } as TestUser;
    const chain = await heavyChain(alice, botUser);
    const reply = await postMessage(api, alice.token, {
      content: 'for the bot',
      parent_id: chain[9],
      recipients: [bot.user_tag],
    });
    const deliveries = await receiver.waitFor(
      (all) => all.some((d) => d.body.includes(reply.id)),
      30_000,
      'the reply delivered',
    );
    const delivery = deliveries.find((d) => d.body.includes(reply.id))!;
    expect(delivery.verified).toBe(true);
    expect(Buffer.byteLength(delivery.body)).toBeLessThan(BUDGET);
    const body = JSON.parse(delivery.body) as Event;
    expect(body.content.context_truncated).toBe(true);
  });
});
