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
