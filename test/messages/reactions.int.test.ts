// Emoji reactions: PUT and DELETE /v1/messages/{message_id}/reactions/{reaction}, GET
// /v1/messages/{message_id}/reactions, MessageOutput.reactions and the GraphQL fields. Who is shown a
// reaction is a visibility decision (cypher/fragments/reaction-shown.cypher), so the BCC and
// lost-access cases are checked for counts, lists and events alike.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { channelWith, registerCreator } from '../channels/channel-helpers.js';
import { USER_FIELDS } from '../support/api-types.js';
import { postMessage, registerWriter, type PostedMessage, type TestUser } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket, type Frame } from '../support/ws-client.js';

interface ReactionCount {
  reaction: string;
  count: number;
  me: boolean;
}

interface ReactionState {
  message_id: string;
  reaction: string;
  me: boolean;
  reactions: ReactionCount[];
}

interface ReactionList {
  message_id: string;
  reactions: (ReactionCount & { users: { uid: string }[]; has_more: boolean })[];
  skip: number;
  limit: number;
}

interface Notification {
  event: { type: string; content: { messages?: { id: string }[]; changes?: string[] } };
}

const MESSAGE_404 = { detail: 'Message not found.', code: 'message_not_found' };

let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});

afterAll(async () => {
  closeAllSockets();
  await api.close();
});

const reactionPath = (id: string, reaction: string) =>
  `/v1/messages/${id}/reactions/${encodeURIComponent(reaction)}`;

function react(user: TestUser, id: string, reaction: string): Promise<ApiResponse<ReactionState>> {
  return api.request<ReactionState>('PUT', reactionPath(id, reaction), { token: user.token });
}

function unreact(user: TestUser, id: string, reaction: string): Promise<ApiResponse<ReactionState>> {
  return api.request<ReactionState>('DELETE', reactionPath(id, reaction), { token: user.token });
}

async function reactOk(user: TestUser, id: string, reaction: string): Promise<ReactionState> {
  const res = await react(user, id, reaction);
  expect(res.status).toBe(200);
  return res.body;
}

function reactors(user: TestUser, id: string, query = ''): Promise<ApiResponse<ReactionList>> {
  return api.request<ReactionList>('GET', `/v1/messages/${id}/reactions${query}`, { token: user.token });
}

/** The message's reactions as `user` reads them (GET /v1/messages/{id}). */
async function shownTo(user: TestUser, id: string): Promise<ReactionCount[]> {
  const res = await api.request<{ reactions: ReactionCount[] }>('GET', `/v1/messages/${id}`, {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.reactions;
}

/** The `message.updated` events about `id` with the change `reactions` that `user` was handed. */
async function reactionEvents(user: TestUser, id: string): Promise<Notification[]> {
  const res = await api.request<{ notifications: Notification[] }>('GET', '/v1/notifications?limit=100', {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.notifications.filter(
    (n) =>
      n.event.type === 'message.updated' &&
      (n.event.content.changes ?? []).includes('reactions') &&
      (n.event.content.messages ?? []).some((m) => m.id === id),
  );
}

async function edgeCount(id: string, reaction: string): Promise<number> {
  const [row] = await api.ctx.db.runText(
    'MATCH (:User)-[r:REACTED {reaction: $reaction}]->(:Message {id: $id}) RETURN count(r) AS n',
    { id, reaction },
  );
  return row!.n as number;
}

async function writers(count: number): Promise<TestUser[]> {
  return Promise.all(Array.from({ length: count }, () => registerWriter(api)));
}

/** A message from a fresh author to `others` as CC recipients. */
async function conversation(size: number): Promise<{ users: TestUser[]; message: PostedMessage }> {
  const users = await writers(size);
  const message = await postMessage(api, users[0]!.token, {
    content: 'react to me',
    recipients: users.slice(1).map((u) => u.tag),
  });
  return { users, message };
}

/** `count` different emoji (U+1F600 on, each one emoji by default), starting at `from`. */
const emoji = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => String.fromCodePoint(0x1f600 + from + i));

describe('PUT /v1/messages/{message_id}/reactions/{reaction}', () => {
  it('when a recipient reacts, then 200 with its state, and every viewer sees the count with their own me', async () => {
    const { users, message } = await conversation(3);
    const [author, ada, bob] = users as [TestUser, TestUser, TestUser];
    expect(await reactOk(ada, message.id, '👍')).toEqual({
      message_id: message.id,
      reaction: '👍',
      me: true,
      reactions: [{ reaction: '👍', count: 1, me: true }],
    });
    expect(await shownTo(author, message.id)).toEqual([{ reaction: '👍', count: 1, me: false }]);
    expect(await shownTo(bob, message.id)).toEqual([{ reaction: '👍', count: 1, me: false }]);
    expect(await shownTo(ada, message.id)).toEqual([{ reaction: '👍', count: 1, me: true }]);
  });

  it('when the same reaction is added twice, then the second changes nothing and records no event', async () => {
    const { users, message } = await conversation(2);
    const [author, ada] = users as [TestUser, TestUser];
    const first = await reactOk(ada, message.id, '🎉');
    expect(await reactOk(ada, message.id, '🎉')).toEqual(first);
    expect(await edgeCount(message.id, '🎉')).toBe(1);
    expect(await reactionEvents(author, message.id)).toHaveLength(1);
  });

  it('when twenty identical adds run in parallel, then there is exactly one edge and one event', async () => {
    const { users, message } = await conversation(2);
    const [author, ada] = users as [TestUser, TestUser];
    const answers = await Promise.all(Array.from({ length: 20 }, () => react(ada, message.id, '🔥')));
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    expect(await edgeCount(message.id, '🔥')).toBe(1);
    expect(await reactionEvents(author, message.id)).toHaveLength(1);
    expect(await shownTo(author, message.id)).toEqual([{ reaction: '🔥', count: 1, me: false }]);
  });

  it('when the same emoji comes with and without the variation selector, then it is one reaction in one spelling', async () => {
    const { users, message } = await conversation(3);
    const [, ada, bob] = users as [TestUser, TestUser, TestUser];
    expect((await reactOk(ada, message.id, '\u2764')).reaction).toBe('\u2764\uFE0F');
    await reactOk(bob, message.id, '\u2764\uFE0F');
    expect(await shownTo(ada, message.id)).toEqual([{ reaction: '\u2764\uFE0F', count: 2, me: true }]);
    for (const reaction of ['👍🏽', '👩‍💻', '🏳️‍🌈', '🇫🇷', '1️⃣', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '👩🏻‍❤️‍💋‍👨🏼'])
      expect({ reaction, status: (await react(ada, message.id, reaction)).status }).toEqual({
        reaction,
        status: 200,
      });
  });

  it('when reactions have different counts, then they come most used first, then the one used first', async () => {
    const { users, message } = await conversation(4);
    const [author, ada, bob, cy] = users as [TestUser, TestUser, TestUser, TestUser];
    await reactOk(ada, message.id, '🎉');
    await reactOk(ada, message.id, '👍');
    await reactOk(bob, message.id, '👀');
    await reactOk(cy, message.id, '👍');
    expect(await shownTo(author, message.id)).toEqual([
      { reaction: '👍', count: 2, me: false },
      { reaction: '🎉', count: 1, me: false },
      { reaction: '👀', count: 1, me: false },
    ]);
  });

  it.each([
    ['plain text', 'hello'],
    ['a digit', '1'],
    ['two emoji', '👍👍'],
    ['an emoji and a space', '👍 '],
    ['a short name', ':thumbsup:'],
    ['a lone skin tone', '🏽'],
    ['a lone regional indicator', '🇫'],
    ['a ZWJ sequence over 40 bytes', Array.from({ length: 7 }, () => '😀').join('\u200D')],
  ])(
    'when the reaction is %s, then 422 validation_error naming the path parameter',
    async (_what, reaction) => {
      const { users, message } = await conversation(1);
      const res = await react(users[0]!, message.id, reaction);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['path', 'reaction'], msg: expect.stringContaining('one emoji'), type: 'custom' }],
        code: 'validation_error',
      });
      expect(await shownTo(users[0]!, message.id)).toEqual([]);
    },
  );

  it('when the reaction is empty, then REST has no such route (405) and GraphQL and the list filter answer 422', async () => {
    const { users, message } = await conversation(1);
    const [author] = users as [TestUser];
    const put = await api.request('PUT', `/v1/messages/${message.id}/reactions/`, { token: author.token });
    expect(put.status).toBe(405);
    const list = await reactors(author, message.id, '?reaction=');
    expect(list.status).toBe(422);
    expect(list.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['query', 'reaction'] }] });
    const gql = await api.graphql(
      'mutation($id: String!) { react(message_id: $id, reaction: "") { me } }',
      { id: message.id },
      { token: author.token },
    );
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error' });
  });

  it('when a user holds 20 reactions on a message, then a 21st is 409 too_many_own_reactions and removing one makes room', async () => {
    const { users, message } = await conversation(1);
    const [author] = users as [TestUser];
    for (const reaction of emoji(20)) await reactOk(author, message.id, reaction);
    const refused = await react(author, message.id, emoji(1, 20)[0]!);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: expect.stringContaining('20'), code: 'too_many_own_reactions' });
    // Repeating one already held is no new reaction.
    expect((await react(author, message.id, emoji(1)[0]!)).status).toBe(200);
    await unreact(author, message.id, emoji(1)[0]!);
    expect((await react(author, message.id, emoji(1, 20)[0]!)).status).toBe(200);
  });

  it('when a message holds 50 different reactions, then a new one is 409 too_many_reactions and an existing one is still taken', async () => {
    const { users, message } = await conversation(4);
    const [author, ada, bob, cy] = users as [TestUser, TestUser, TestUser, TestUser];
    await Promise.all([
      (async () => {
        for (const reaction of emoji(20, 0)) await reactOk(author, message.id, reaction);
      })(),
      (async () => {
        for (const reaction of emoji(20, 20)) await reactOk(ada, message.id, reaction);
      })(),
      (async () => {
        for (const reaction of emoji(10, 40)) await reactOk(bob, message.id, reaction);
      })(),
    ]);
    const refused = await react(cy, message.id, emoji(1, 50)[0]!);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: expect.stringContaining('50'), code: 'too_many_reactions' });
    expect((await react(cy, message.id, emoji(1, 49)[0]!)).status).toBe(200);
    expect(await shownTo(cy, message.id)).toHaveLength(50);
  });
});

describe('DELETE /v1/messages/{message_id}/reactions/{reaction}', () => {
  it('when a reaction is removed, then me is false and the count drops; removing it again is still 200 and tells nobody', async () => {
    const { users, message } = await conversation(3);
    const [author, ada, bob] = users as [TestUser, TestUser, TestUser];
    await reactOk(ada, message.id, '👍');
    await reactOk(bob, message.id, '👍');
    const removed = await unreact(ada, message.id, '👍');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      message_id: message.id,
      reaction: '👍',
      me: false,
      reactions: [{ reaction: '👍', count: 1, me: false }],
    });
    expect(await reactionEvents(author, message.id)).toHaveLength(3);
    const again = await unreact(ada, message.id, '👍');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(removed.body);
    expect(await reactionEvents(author, message.id)).toHaveLength(3);
    await unreact(bob, message.id, '👍');
    expect(await shownTo(author, message.id)).toEqual([]);
  });
});

describe('GET /v1/messages/{message_id}/reactions', () => {
  it('when a viewer lists reactions, then each reaction lists its reactors earliest first as public users, paged per reaction', async () => {
    const { users, message } = await conversation(4);
    const [author, ada, bob, cy] = users as [TestUser, TestUser, TestUser, TestUser];
    await reactOk(ada, message.id, '👍');
    await reactOk(bob, message.id, '👍');
    await reactOk(cy, message.id, '👍');
    await reactOk(bob, message.id, '🎉');
    const all = await reactors(ada, message.id);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ message_id: message.id, skip: 0, limit: 20 });
    expect(
      all.body.reactions.map((r) => [r.reaction, r.count, r.me, r.users.map((u) => u.uid), r.has_more]),
    ).toEqual([
      ['👍', 3, true, [ada.uid, bob.uid, cy.uid], false],
      ['🎉', 1, false, [bob.uid], false],
    ]);
    for (const user of all.body.reactions.flatMap((r) => r.users))
      expect(Object.keys(user).sort()).toEqual(USER_FIELDS);

    const page = await reactors(author, message.id, `?reaction=${encodeURIComponent('👍')}&skip=1&limit=1`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ skip: 1, limit: 1 });
    expect(
      page.body.reactions.map((r) => [r.reaction, r.count, r.users.map((u) => u.uid), r.has_more]),
    ).toEqual([['👍', 3, [bob.uid], true]]);
  });

  it('when the message has no reactions, then an empty list', async () => {
    const { users, message } = await conversation(1);
    expect((await reactors(users[0]!, message.id)).body.reactions).toEqual([]);
  });

  it('when skip or limit is out of range, then 422', async () => {
    const { users, message } = await conversation(1);
    for (const query of ['?limit=0', '?limit=101', '?skip=-1'])
      expect((await reactors(users[0]!, message.id, query)).status).toBe(422);
  });
});

describe('visibility', () => {
  it('when a stranger uses any reaction route on a message they cannot see, then the same 404 as a missing message and nothing changes', async () => {
    const { users, message } = await conversation(2);
    const [author, ada] = users as [TestUser, TestUser];
    const [stranger] = await writers(1);
    await reactOk(ada, message.id, '👍');
    for (const id of [message.id, '0badc0de']) {
      for (const res of [
        await react(stranger!, id, '👍'),
        await react(stranger!, id, '🎉'),
        await unreact(stranger!, id, '👍'),
        await reactors(stranger!, id),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(MESSAGE_404);
      }
    }
    expect(await shownTo(author, message.id)).toEqual([{ reaction: '👍', count: 1, me: false }]);
  });

  it('when a BCC recipient reacts, then only the author, the adder and that recipient see it, in counts, lists and events', async () => {
    const [author, cc, bcc] = await writers(3);
    const message = await postMessage(api, author!.token, {
      content: 'with a blind copy',
      recipients: [cc!.tag, { user_tag: bcc!.tag, public: false }],
    });
    await reactOk(bcc!, message.id, '👀');
    await reactOk(cc!, message.id, '👀');
    expect(await shownTo(author!, message.id)).toEqual([{ reaction: '👀', count: 2, me: false }]);
    expect(await shownTo(bcc!, message.id)).toEqual([{ reaction: '👀', count: 2, me: true }]);
    expect(await shownTo(cc!, message.id)).toEqual([{ reaction: '👀', count: 1, me: true }]);
    const ccList = (await reactors(cc!, message.id)).body.reactions;
    expect(ccList.map((r) => r.users.map((u) => u.uid))).toEqual([[cc!.uid]]);
    const authorList = (await reactors(author!, message.id)).body.reactions;
    expect(authorList.map((r) => r.users.map((u) => u.uid))).toEqual([[bcc!.uid, cc!.uid]]);

    // The BCC recipient's reaction told the author only (the author also added the entry); cc's told both.
    expect(await reactionEvents(author!, message.id)).toHaveLength(2);
    expect(await reactionEvents(bcc!, message.id)).toHaveLength(1);
    expect(await reactionEvents(cc!, message.id)).toHaveLength(0);

    // A distinct reaction only the BCC recipient holds is not one the cc recipient is shown.
    await reactOk(bcc!, message.id, '🤫');
    expect((await shownTo(cc!, message.id)).map((r) => r.reaction)).toEqual(['👀']);
    expect(await reactionEvents(cc!, message.id)).toHaveLength(0);
  });

  it('when a reactor loses sight of the message, then the reaction is no longer counted, and it is back with access', async () => {
    const { users, message } = await conversation(3);
    const [author, ada, bob] = users as [TestUser, TestUser, TestUser];
    await reactOk(ada, message.id, '👍');
    await reactOk(bob, message.id, '👍');
    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: author.token,
      body: { recipient_uid: bob.uid, message_id: message.id },
    });
    expect(removed.status).toBe(200);
    expect(await shownTo(author, message.id)).toEqual([{ reaction: '👍', count: 1, me: false }]);
    expect((await reactors(author, message.id)).body.reactions[0]!.users.map((u) => u.uid)).toEqual([
      ada.uid,
    ]);
    expect((await reactors(bob, message.id)).status).toBe(404);
    const added = await api.request('POST', '/v1/recipients/add', {
      token: author.token,
      body: { message_id: message.id, recipients: [bob.tag] },
    });
    expect(added.status).toBe(200);
    expect(await shownTo(author, message.id)).toEqual([{ reaction: '👍', count: 2, me: false }]);
  });

  it('when a channel member reacts, then the channel hears message.updated on its socket; a stranger hears nothing', async () => {
    const admin = await registerCreator(api);
    const [author, member, stranger] = await writers(3);
    const channel = await channelWith(api, admin, [author!, member!]);
    const message = await postMessage(api, author!.token, {
      content: 'in a channel',
      channel_ids: [channel.id],
    });

    const socket = await openSocket(api, { token: author!.token });
    expect((await socket.next()).type).toBe('ready');
    const strangerSocket = await openSocket(api, { token: stranger!.token });
    expect((await strangerSocket.next()).type).toBe('ready');

    await reactOk(member!, message.id, '🚀');
    const frame: Frame = await socket.next();
    expect(frame).toEqual({
      type: 'notification',
      cursor: expect.any(String),
      event: {
        type: 'message.updated',
        recipient_uid: author!.uid,
        content: {
          messages: [
            {
              id: message.id,
              content: 'in a channel',
              parent_id: null,
              author: { uid: author!.uid, user_tag: author!.tag },
            },
          ],
          context: [],
          changes: ['reactions'],
        },
      },
    });
    strangerSocket.send({ type: 'ping' });
    expect(await strangerSocket.next()).toEqual({ type: 'pong' });
  });

  it('when a message is deleted, then its reactions go with it and every reaction route answers 404', async () => {
    const { users, message } = await conversation(2);
    const [author, ada] = users as [TestUser, TestUser];
    await reactOk(ada, message.id, '👍');
    expect((await api.request('DELETE', `/v1/messages/${message.id}`, { token: author.token })).status).toBe(
      200,
    );
    expect(await edgeCount(message.id, '👍')).toBe(0);
    expect((await reactors(ada, message.id)).status).toBe(404);
    expect((await react(ada, message.id, '👍')).status).toBe(404);
    expect((await unreact(ada, message.id, '👍')).status).toBe(404);
  });
});

describe('fields= and GraphQL', () => {
  it('when a thread is read with fields=reactions, then each message has id and reactions as in the full answer', async () => {
    const { users, message } = await conversation(2);
    const [author, ada] = users as [TestUser, TestUser];
    const reply = await postMessage(api, ada.token, {
      content: 'a reply',
      parent_id: message.id,
      audience: 'parent',
    });
    await reactOk(ada, message.id, '👍');
    await reactOk(author, reply.id, '🎉');
    const full = await api.request<{ messages: { id: string; reactions: ReactionCount[] }[] }>(
      'GET',
      `/v1/messages/${message.id}/thread`,
      { token: ada.token },
    );
    const sparse = await api.request<{ messages: Record<string, unknown>[] }>(
      'GET',
      `/v1/messages/${message.id}/thread?fields=reactions`,
      { token: ada.token },
    );
    expect(sparse.status).toBe(200);
    expect(sparse.body.messages).toEqual(
      full.body.messages.map((m) => ({ id: m.id, reactions: m.reactions })),
    );
    expect(sparse.body.messages).toEqual([
      { id: message.id, reactions: [{ reaction: '👍', count: 1, me: true }] },
      { id: reply.id, reactions: [{ reaction: '🎉', count: 1, me: false }] },
    ]);
    const cheap = await api.request<{ messages: Record<string, unknown>[] }>(
      'GET',
      `/v1/messages/${message.id}/thread?fields=content`,
      { token: ada.token },
    );
    expect(cheap.body.messages.every((m) => !('reactions' in m))).toBe(true);
  });

  it('when GraphQL reacts, lists and reads reactions, then the answers are those of REST', async () => {
    const { users, message } = await conversation(3);
    const [author, ada, bob] = users as [TestUser, TestUser, TestUser];
    await reactOk(bob, message.id, '👍');
    const reacted = await api.graphql<{ react: ReactionState }>(
      'mutation($id: String!, $r: String!) { react(message_id: $id, reaction: $r) { message_id reaction me reactions { reaction count me } } }',
      { id: message.id, r: '❤' },
      { token: ada.token },
    );
    expect(reacted.body.errors).toBeUndefined();
    expect(reacted.body.data!.react).toEqual({
      message_id: message.id,
      reaction: '❤️',
      me: true,
      reactions: [
        { reaction: '👍', count: 1, me: false },
        { reaction: '❤️', count: 1, me: true },
      ],
    });

    const read = await api.graphql<{ message: { reactions: ReactionCount[] } }>(
      'query($id: String!) { message(message_id: $id) { reactions { reaction count me } } }',
      { id: message.id },
      { token: author.token },
    );
    expect(read.body.data!.message.reactions).toEqual(await shownTo(author, message.id));

    const thread = await api.graphql<{
      threadMessages: { messages: { id: string; reactions: ReactionCount[] }[] };
    }>(
      'query($id: String!) { threadMessages(message_id: $id) { messages { id reactions { reaction count me } } } }',
      { id: message.id },
      { token: author.token },
    );
    expect(thread.body.data!.threadMessages.messages).toEqual([
      { id: message.id, reactions: await shownTo(author, message.id) },
    ]);

    const listed = await api.graphql<{ reactions: ReactionList }>(
      `query($id: String!) { reactions(message_id: $id, limit: 5) {
         message_id skip limit reactions { reaction count me has_more users { uid user_tag } } } }`,
      { id: message.id },
      { token: author.token },
    );
    const rest = (await reactors(author, message.id, '?limit=5')).body;
    expect(listed.body.data!.reactions).toEqual({
      ...rest,
      reactions: rest.reactions.map((r) => ({
        ...r,
        users: r.users.map((u) => ({ uid: u.uid, user_tag: (u as { user_tag?: string }).user_tag })),
      })),
    });

    const removed = await api.graphql<{ unreact: ReactionState }>(
      'mutation($id: String!) { unreact(message_id: $id, reaction: "❤️") { me reactions { reaction } } }',
      { id: message.id },
      { token: ada.token },
    );
    expect(removed.body.data!.unreact).toEqual({ me: false, reactions: [{ reaction: '👍' }] });

    const stranger = (await writers(1))[0]!;
    const hidden = await api.graphql(
      'query($id: String!) { reactions(message_id: $id) { message_id } }',
      { id: message.id },
      { token: stranger.token },
    );
    expect(hidden.body.errors?.[0]?.extensions).toMatchObject({ code: 'message_not_found' });
  });
});
