// Findings of the visibility model test and the bad-input fuzzing (issue 7), each reduced to the
// smallest request sequence that showed it, so that a fixed bug stays fixed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, createChannel, registerCreator } from '../channels/channel-helpers.js';
import { registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Notification {
  seq: number;
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
  // for the first message of a chain, a `sent` one for the second) and both got the same seq, so
  // the outbox's uniqueness constraint failed the whole post with a 500.
  it('when one post tells a user twice (channel member of one item, recipient of another), then 200 and two notifications with consecutive seqs', async () => {
    const author = await registerCreator(api);
    const member = await registerWriter(api);
    const channel = await createChannel(api, author.token);
    await addMember(api, author.token, channel.id, { uid: member.uid });

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
    const [first, second] = res.body;

    const page = await api.request<{ notifications: Notification[] }>('GET', '/v1/notifications', {
      token: member.token,
    });
    expect(page.status).toBe(200);
    const told = page.body.notifications.map((n) => ({
      seq: n.seq,
      type: n.event.type,
      ids: n.event.content.messages.map((m) => m.id),
    }));
    expect(told).toHaveLength(2);
    expect(told.map((n) => n.seq).sort()).toEqual([1, 2]);
    expect(told.map((n) => `${n.type}:${n.ids.join(',')}`).sort()).toEqual([
      `channels:${first!.message.id}`,
      `sent:${second!.message.id}`,
    ]);
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
      `query($id: String!) { message(id: $id) { ${nested} } }`,
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
      'query($id: String!) { message(id: $id) { thread { id thread { id } } } }',
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
      'query($id: String!) { message(id: $id) { thread { id } } }',
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
      'query($id: String!) { message(id: $id) { replies { id thread { id } } } }',
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
