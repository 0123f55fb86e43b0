// GraphQL loads only what a query selects: a selection with no link field (recipients, replies,
// stitches, channels, attachments, saved state) is answered by the hydration without links. These
// tests hold the answers to what REST's full answer says, whichever way the selection is written
// (plain, through a fragment, aliased, under @include, nested under a cheaper level), so a wrong
// "no links needed" decision shows up as missing recipients or replies.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PostedMessage, TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { seedHiddenMiddleThread, view, type ViewMessage } from '../threads/thread-fixtures.js';

let api: TestServer;
let bob: TestUser, carol: TestUser;
let root: PostedMessage, hidden: PostedMessage, reply: PostedMessage;

beforeAll(async () => {
  api = await startTestServer();
  ({ bob, carol, root, hidden, reply } = await seedHiddenMiddleThread(api, 'selected'));
});
afterAll(async () => {
  await api.close();
});

async function query<T>(user: TestUser, text: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await api.graphql(text, variables, { token: user.token });
  expect(res.status).toBe(200);
  const body = res.body as { data?: T; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!;
}

/** A message of a REST view, fully hydrated. */
type FullMessage = ViewMessage & { author: { uid: string }; recipients: { uid: string }[] };

/** The REST thread view, fully hydrated, as the user sees it. */
async function restThread(user: TestUser): Promise<FullMessage[]> {
  return (await view(api, `/v1/messages/${root.id}/thread`, user.token)).messages as FullMessage[];
}

const recipientUids = (m: { recipients: { uid: string }[] }) => m.recipients.map((r) => r.uid).sort();

describe('GraphQL answers only what the query selects, with the values of the full answer', () => {
  it('when a thread is read with plain fields only, then the values are those of the full answer and a hidden parent is still null', async () => {
    const data = await query<{
      threadMessages: {
        messages: { id: string; content: string; parent_id: string | null; author: { uid: string } }[];
      };
    }>(
      carol,
      `query($id: String!) { threadMessages(message_id: $id) {
         messages { id content parent_id author { uid } parent { id } } } }`,
      { id: root.id },
    );
    const full = await restThread(carol);
    expect(data.threadMessages.messages).toEqual(
      full.map((m) => ({
        id: m.id,
        content: m.content,
        parent_id: m.parent_id,
        author: { uid: m.author.uid },
        parent: m.parent_id ? { id: m.parent_id } : null,
      })),
    );
    expect(data.threadMessages.messages.map((m) => m.id)).toEqual([root.id, reply.id]);
  });

  it('when link fields come through a fragment, an alias or @include, then they are loaded', async () => {
    const data = await query<{
      threadMessages: { messages: { id: string; who: { user: { uid: string } }[]; reply_ids?: string[] }[] };
    }>(
      bob,
      `query($id: String!, $links: Boolean!) { threadMessages(message_id: $id) { messages { id ...Audience } } }
       fragment Audience on Message { who: recipients { user { uid } } reply_ids @include(if: $links) }`,
      { id: root.id, links: true },
    );
    const full = await restThread(bob);
    expect(data.threadMessages.messages.map((m) => m.who.map((r) => r.user.uid).sort())).toEqual(
      full.map(recipientUids),
    );
    expect(data.threadMessages.messages.map((m) => m.reply_ids)).toEqual(full.map((m) => m.reply_ids));
    expect(data.threadMessages.messages[1]!.reply_ids).toEqual([reply.id]);
  });

  it('when replies are selected under a message loaded for plain fields, then each level loads what it needs', async () => {
    const data = await query<{
      message: { id: string; replies: { id: string; content: string; replies: { id: string }[] }[] };
    }>(bob, `query($id: String!) { message(message_id: $id) { id replies { id content replies { id } } } }`, {
      id: root.id,
    });
    expect(data.message).toEqual({
      id: root.id,
      replies: [{ id: hidden.id, content: 'selected, only for bob', replies: [{ id: reply.id }] }],
    });
  });

  it('when a page selects channels or recipients, then they match the full answer; without them the page still lists the same messages', async () => {
    const full = (await view(api, '/v1/messages/timeline?limit=5', carol.token)).messages as FullMessage[];
    const withLinks = await query<{
      timeline: { messages: { id: string; recipients: { uid: string }[] }[] };
    }>(carol, `{ timeline(limit: 5) { messages { id recipients { uid } } } }`);
    expect(withLinks.timeline.messages.map(recipientUids)).toEqual(full.map(recipientUids));
    const plain = await query<{ timeline: { messages: { id: string; timestamp: string }[] } }>(
      carol,
      `{ timeline(limit: 5) { messages { id timestamp } } }`,
    );
    expect(plain.timeline.messages).toEqual(full.map((m) => ({ id: m.id, timestamp: m.timestamp })));
  });

  it('when a traversal selects replies and plain message fields, then the reply summary is kept', async () => {
    const rest = await api.request<{ messages: { id: string; replies: { count: number; ids: string[] } }[] }>(
      'GET',
      `/v1/messages/traverse-from/${root.id}?get_replies=true`,
      { token: bob.token },
    );
    expect(rest.status).toBe(200);
    const data = await query<{
      traverse: { messages: { replies: { count: number; ids: string[] } | null; message: { id: string } }[] };
    }>(
      bob,
      `query($id: String!) { traverse(message_id: $id, get_replies: true) {
         messages { replies { count ids } message { id content } } } }`,
      { id: root.id },
    );
    expect(data.traverse.messages.map((m) => [m.message.id, m.replies])).toEqual(
      rest.body.messages.map((m) => [m.id, m.replies]),
    );
    expect(data.traverse.messages[0]!.replies).toEqual({ count: 1, ids: [hidden.id] });
  });
});
