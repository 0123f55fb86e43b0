// Findings of the visibility model test and the bad-input fuzzing (issue 7), each reduced to the
// smallest request sequence that showed it, so that a fixed bug stays fixed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, createChannel, registerCreator } from '../channels/channel-helpers.js';
import { registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Notification {
  id: string;
  cursor: string;
  event: { type: string; content: { messages: { id: string }[] } };
}

let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});

afterAll(async () => {
  await api.close();
});

describe('notifications', () => {
  // Found by the visibility model test: one post gave a user two notifications (a `channels` one
  // for the first message of a chain, a `sent` one for the second) and both got the same per-user
  // seq, so the outbox's uniqueness constraint failed the whole post with a 500. Since the event log
  // (one event per change, numbered after commit) there are no per-user numbers to collide: the post
  // records one `channels` event for the channel and one `sent` event for the member, and the member
  // is handed both, each once, with cursors of their own.
  it('when one post tells a user twice (channel member of one item, recipient of another), then 200 and both events, each once', async () => {
    const author = await registerCreator(api);
    const member = await registerWriter(api);
    const channel = await createChannel(api, author.token);
    await addMember(api, author.token, channel.id, { uid: member.uid });
    const start = await api.request<{ cursor: string }>('GET', '/v1/notifications', { token: member.token });
    expect(start.status).toBe(200);

    const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
      token: author.token,
      body: {
        messages: [
          { content: 'into the channel', channel_ids: [channel.id] },
          { content: 'to the member', recipients: [member.tag] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((item) => item.ok)).toEqual([true, true]);
    const [first, second] = res.body;

    const page = await api.request<{ notifications: Notification[]; has_more: boolean }>(
      'GET',
      `/v1/notifications?since=${encodeURIComponent(start.body.cursor)}`,
      { token: member.token },
    );
    expect(page.status).toBe(200);
    expect(page.body.has_more).toBe(false);
    const told = page.body.notifications.map((n) => ({
      cursor: n.cursor,
      id: n.id,
      type: n.event.type,
      ids: n.event.content.messages.map((m) => m.id),
    }));
    // Both events of the one change; their order within it is not the point.
    expect(told.map((n) => `${n.type}:${n.ids.join(',')}`).sort()).toEqual([
      `channels:${first!.message.id}`,
      `sent:${second!.message.id}`,
    ]);
    expect(new Set(told.map((n) => n.cursor)).size).toBe(2);
    expect(new Set(told.map((n) => n.id)).size).toBe(2);
    // The author hears nothing of their own post.
    const own = await api.request<{ notifications: Notification[] }>('GET', '/v1/notifications', {
      token: author.token,
    });
    expect(JSON.stringify(own.body.notifications)).not.toContain(first!.message.id);
  });

  // Found while porting the visibility model test to the event log: one post puts one item into
  // channel A and another into channel B; a member of both must hear of both items. (A change heard
  // through two channels is handed out once, which must not drop the other channel's messages.)
  it('when one post puts its items into two channels a user belongs to, then the user is told of every item', async () => {
    const author = await registerCreator(api);
    const member = await registerWriter(api);
    const channels = [await createChannel(api, author.token), await createChannel(api, author.token)];
    for (const channel of channels) await addMember(api, author.token, channel.id, { uid: member.uid });
    const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
      token: author.token,
      body: {
        messages: [
          { content: 'into channel A', channel_ids: [channels[0]!.id] },
          { content: 'into channel B', channel_ids: [channels[1]!.id] },
        ],
      },
    });
    expect(res.status).toBe(200);
    const ids = res.body.map((item) => item.message.id);
    const page = await api.request<{ notifications: Notification[] }>('GET', '/v1/notifications', {
      token: member.token,
    });
    expect(page.status).toBe(200);
    const told = page.body.notifications
      .filter((n) => n.event.type === 'channels')
      .flatMap((n) => n.event.content.messages.map((m) => m.id));
    expect(told.sort()).toEqual([...ids].sort());
  });
});

describe('GraphQL', () => {
  // Found while fuzzing the GraphQL limits: the cost limit counts each field once, whatever the
  // size of the lists around it, so list fields nested in each other multiply the answer. On a
  // thread of 30 messages, `message { thread { thread { thread { thread { id } } } } }` (depth 6,
  // well within every limit) answered 810 000 objects, 15 MB, and took 900 MB of heap for 20 s;
  // one more level is 24 million objects, enough to exhaust the process. Such a query must be
  // refused before it runs.
  it('when list fields are nested five deep on a thread of 10, then the query is refused with a 4xx before running', async () => {
    const author = await registerWriter(api);
    const chain = Array.from({ length: 10 }, (_, i) => ({ content: `link ${i}` }));
    const posted = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
      token: author.token,
      body: chain,
    });
    expect(posted.status).toBe(200);
    const rootId = posted.body[0]!.message.id;

    const nested = 'thread { id '.repeat(5) + '}'.repeat(5);
    const res = await api.graphql<{ message: unknown }>(
      `query($id: String!) { message(message_id: $id) { ${nested} } }`,
      { id: rootId },
      { token: author.token },
    );
    // 10^5 = 100 000 objects today; refused once list sizes count.
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0]?.message).toMatch(/cost|complex|nest|list/i);
  });
});

describe('GraphQL answer size', () => {
  // Found when reviewing the list nesting limit: two nested lists pass it, and
  // `message { thread { thread { id } } }` answers n + n² objects for a thread of n messages (10^8
  // on a 10 000-message thread), and the thread look-up used to return every thread once per asked
  // message from the database. The answer is now counted as it is built and refused past the budget.
  let token: string;
  let rootId: string;
  const SIZE = 240; // 240 + 240² > 50 000 objects (MAX_ANSWER_OBJECTS)

  beforeAll(async () => {
    const author = await registerWriter(api);
    token = author.token;
    let parentId: string | undefined;
    for (let posted = 0; posted < SIZE; posted += 80) {
      const chain = Array.from({ length: 80 }, (_, i) => ({
        content: `link ${posted + i}`,
        ...(i === 0 && parentId ? { parent_id: parentId } : {}),
      }));
      const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
        token,
        body: chain,
      });
      expect(res.status).toBe(200);
      rootId ??= res.body[0]!.message.id;
      parentId = res.body.at(-1)!.message.id;
    }
  });

  it('when a thread is asked for inside its own thread, then 400 answer_too_large with one error and no data', async () => {
    const res = await api.graphql<{ message: unknown }>(
      'query($id: String!) { message(message_id: $id) { thread { id thread { id } } } }',
      { id: rootId },
      { token },
    );
    expect(res.status).toBe(400);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'answer_too_large', status: 400 });
  });

  it('when the same thread is asked for once, then all of it comes back', async () => {
    const res = await api.graphql<{ message: { thread: { id: string }[] } }>(
      'query($id: String!) { message(message_id: $id) { thread { id } } }',
      { id: rootId },
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.message.thread).toHaveLength(SIZE);
    expect(res.body.data?.message.thread[0]!.id).toBe(rootId);
  });

  it('when a list of messages each asks for its thread within the budget, then every item gets the same thread', async () => {
    const res = await api.graphql<{ message: { replies: { thread: { id: string }[] }[] } }>(
      'query($id: String!) { message(message_id: $id) { replies { id thread { id } } } }',
      { id: rootId },
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const replies = res.body.data!.message.replies;
    expect(replies).toHaveLength(1);
    expect(replies[0]!.thread).toHaveLength(SIZE);
  });
});
