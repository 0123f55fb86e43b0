// GET /v1/messages/{message_id}/thread and GET /v1/messages/conversation/{uid}, and their GraphQL
// fields (threadMessages, conversation). Every user here is new, so whole pages can be asserted.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  postMessage,
  registerUser,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import { CONVERSATION_EXPAND_MAX } from '../../src/components/threads/threads-repository.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  createChannel,
  expectValidationError,
  idsOf,
  registerChannelOwner,
  view,
  type Page,
} from './thread-fixtures.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const post = (user: TestUser, input: Record<string, unknown>) => postMessage(api, user.token, input);
const bcc = (user: TestUser) => ({ uid: user.uid, public: false });
const threadPath = (id: string, query = '') => `/v1/messages/${id}/thread${query}`;
const conversationPath = (uid: string, query = '') => `/v1/messages/conversation/${uid}${query}`;

/** Every page of a view, `limit` at a time, as [ids, has_more] pairs. */
async function allPages(path: string, token: string, limit: number): Promise<[string[], boolean][]> {
  const pages: [string[], boolean][] = [];
  for (let skip = 0; ; skip += limit) {
    const page = await view(api, `${path}?skip=${skip}&limit=${limit}`, token);
    expect(page).toMatchObject({ skip, limit });
    pages.push([idsOf(page), page.has_more]);
    if (!page.has_more) return pages;
  }
}

/** A key of a writer capped to messages.write: signed in, but without messages.read. */
async function keyWithoutRead(): Promise<string> {
  const writer = await registerWriter(api, { apiAccess: true });
  return (await createKey(api, writer.token, { scopes_cap: 'messages.write' })).key;
}

describe('GET /v1/messages/{message_id}/thread', () => {
  let alice: TestUser, bob: TestUser, carol: TestUser;
  let root: PostedMessage, answer: PostedMessage, followUp: PostedMessage, branch: PostedMessage;
  let aside: PostedMessage, deep: PostedMessage, elsewhere: PostedMessage;

  beforeAll(async () => {
    [alice, bob, carol] = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
    // root ── answer ── followUp ─┬─ aside (alice to carol only: bob may not see it)
    //     │                       └─ deep
    //     └─ branch
    root = await post(alice, { content: 'thread root', recipients: [bob.tag] });
    answer = await post(bob, { content: 'answer', parent_id: root.id, audience: 'parent' });
    followUp = await post(alice, { content: 'follow-up', parent_id: answer.id, audience: 'parent' });
    branch = await post(bob, { content: 'another branch', parent_id: root.id, audience: 'parent' });
    aside = await post(alice, { content: 'aside to carol', parent_id: followUp.id, recipients: [carol.tag] });
    deep = await post(bob, { content: 'deep reply', parent_id: followUp.id, audience: 'parent' });
    elsewhere = await post(alice, { content: 'another thread', recipients: [bob.tag] });
  });

  it('when a participant reads from the root, then every message of the thread they may see comes, oldest first, across branches', async () => {
    const page = await view(api, threadPath(root.id), bob.token);
    expect(idsOf(page)).toEqual([root.id, answer.id, followUp.id, branch.id, deep.id]);
    expect(page).toMatchObject({ skip: 0, limit: 15, has_more: false });
    expect(idsOf(await view(api, threadPath(root.id), alice.token))).toEqual([
      root.id,
      answer.id,
      followUp.id,
      branch.id,
      aside.id,
      deep.id,
    ]);
  });

  it('when the origin is a reply deep in the thread or on another branch, then the answer is the whole thread, the same as from the root', async () => {
    const fromRoot = await view(api, threadPath(root.id), bob.token);
    for (const origin of [deep, branch, answer]) {
      expect(await view(api, threadPath(origin.id), bob.token)).toEqual(fromRoot);
    }
    expect(idsOf(fromRoot)).not.toContain(elsewhere.id);
  });

  it('when the thread is paged, then skip and limit walk it oldest first and has_more is false on the last page', async () => {
    expect(await allPages(threadPath(deep.id), bob.token, 2)).toEqual([
      [[root.id, answer.id], true],
      [[followUp.id, branch.id], true],
      [[deep.id], false],
    ]);
    const beyond = await view(api, threadPath(root.id, '?skip=10'), bob.token);
    expect(beyond).toEqual({ messages: [], skip: 10, limit: 15, has_more: false });
  });

  it('when a message of the thread is invisible to the caller, then it is neither returned nor counted by the pages', async () => {
    // Alice's aside lies between followUp and deep: were it counted, bob's fourth and fifth
    // messages would shift, and a page ending at branch would announce more.
    expect(await allPages(threadPath(root.id), bob.token, 4)).toEqual([
      [[root.id, answer.id, followUp.id, branch.id], true],
      [[deep.id], false],
    ]);
    const exact = await view(api, threadPath(root.id, '?limit=5'), bob.token);
    expect(exact.has_more).toBe(false);
    expect(JSON.stringify(exact)).not.toContain(aside.id);
    expect(JSON.stringify(exact)).not.toContain('aside to carol');
  });

  it('when the caller sees only one message of the thread, then that message is the whole thread, and a root to the caller, as a real root is', async () => {
    const page = await view(api, threadPath(aside.id), carol.token);
    expect(idsOf(page)).toEqual([aside.id]);
    expect(page.has_more).toBe(false);
    expect(page.messages[0]!.root_id).toBe(aside.id);
    expect(page.messages[0]!.parent_id).toBeNull();
  });

  it('when the origin is invisible to the caller or does not exist, then the same 404 message_not_found', async () => {
    const invisible = await api.request('GET', threadPath(root.id), { token: carol.token });
    const missing = await api.request('GET', threadPath('00000000'), { token: carol.token });
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual({ code: 'message_not_found', detail: expect.any(String) });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(invisible.body);
    // Visible elsewhere in the thread does not make an invisible origin readable.
    const hiddenFromBob = await api.request('GET', threadPath(aside.id), { token: bob.token });
    expect(hiddenFromBob.status).toBe(404);
    expect(hiddenFromBob.body).toEqual(invisible.body);
  });

  it('when nobody is signed in, then 401; when the credential lacks messages.read, then 403 insufficient_scope', async () => {
    expect((await api.request('GET', threadPath(root.id))).status).toBe(401);
    const res = await api.request('GET', threadPath(root.id), { apiKey: await keyWithoutRead() });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when the message id, skip or limit is malformed or out of range, then 422 validation_error on that field', async () => {
    expectValidationError(await api.request('GET', threadPath('nope'), { token: bob.token }), 'message_id');
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['skip=-1', 'skip'],
    ] as const) {
      expectValidationError(
        await api.request('GET', threadPath(root.id, `?${query}`), { token: bob.token }),
        field,
      );
    }
    expect((await view(api, threadPath(root.id, '?limit=100'), bob.token)).limit).toBe(100);
  });
});

describe('GET /v1/messages/conversation/{uid}', () => {
  let alice: TestUser, bob: TestUser, carol: TestUser;
  let first: PostedMessage, reply: PostedMessage, bccToAlice: PostedMessage, bccToBob: PostedMessage;
  let aliceToCarol: PostedMessage, carolToBoth: PostedMessage;

  beforeAll(async () => {
    const owner = await registerChannelOwner(api);
    [alice, bob, carol] = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
    const channelId = await createChannel(api, owner, [alice, bob]);
    // The conversation between alice and bob, in three threads and both directions.
    first = await post(alice, { content: 'hi bob', recipients: [bob.tag] });
    reply = await post(bob, { content: 'hi alice', parent_id: first.id, audience: 'parent' });
    bccToAlice = await post(bob, { content: 'blind copy to alice', recipients: [bcc(alice)] });
    // Not theirs: with a third party only, by a third party, to nobody, public, in a shared channel.
    aliceToCarol = await post(alice, { content: 'alice to carol', recipients: [carol.tag] });
    carolToBoth = await post(carol, { content: 'carol to both', recipients: [alice.tag, bob.tag] });
    await post(alice, { content: 'note to self in the thread', parent_id: first.id });
    await post(bob, { content: 'bob in public', public: true });
    await post(bob, { content: 'bob in the channel', channel_ids: [channelId] });
    bccToBob = await post(alice, { content: 'carol in copy, bob blind', recipients: [carol.tag, bcc(bob)] });
  });

  it('when either side reads it, then the messages each wrote to the other come, newest first, from every thread', async () => {
    const expected = [bccToBob.id, bccToAlice.id, reply.id, first.id];
    const asAlice = await view(api, conversationPath(bob.uid), alice.token);
    expect(idsOf(asAlice)).toEqual(expected);
    expect(asAlice).toMatchObject({ skip: 0, limit: 15, has_more: false });
    expect(idsOf(await view(api, conversationPath(alice.uid), bob.token))).toEqual(expected);
    expect(new Set(asAlice.messages.map((m) => m.root_id))).toEqual(
      new Set([first.id, bccToAlice.id, bccToBob.id]),
    );
  });

  it('when a third party wrote to both, or one of them wrote to the third party only, then those messages are in the conversations with the third party', async () => {
    expect(idsOf(await view(api, conversationPath(alice.uid), carol.token))).toEqual([
      bccToBob.id,
      carolToBoth.id,
      aliceToCarol.id,
    ]);
    // Carol is a co-recipient of bccToBob, not its author or bob's recipient there.
    expect(idsOf(await view(api, conversationPath(bob.uid), carol.token))).toEqual([carolToBoth.id]);
  });

  it('when the conversation holds BCC entries, then each reader sees only what the BCC rule grants', async () => {
    const recipientsOf = (page: Page, id: string) =>
      (page.messages.find((m) => m.id === id) as unknown as { recipients: { uid: string }[] }).recipients
        .map((r) => r.uid)
        .sort();
    const asAlice = await view(api, conversationPath(bob.uid), alice.token);
    expect(recipientsOf(asAlice, bccToAlice.id)).toEqual([alice.uid]);
    expect(recipientsOf(asAlice, bccToBob.id)).toEqual([bob.uid, carol.uid].sort());
    const asCarol = await view(api, conversationPath(alice.uid), carol.token);
    expect(recipientsOf(asCarol, bccToBob.id)).toEqual([carol.uid]);
  });

  it('when the conversation is paged, then skip and limit walk it newest first with has_more', async () => {
    expect(await allPages(conversationPath(bob.uid), alice.token, 3)).toEqual([
      [[bccToBob.id, bccToAlice.id, reply.id], true],
      [[first.id], false],
    ]);
    expect((await view(api, conversationPath(bob.uid, '?limit=4'), alice.token)).has_more).toBe(false);
    const beyond = await view(api, conversationPath(bob.uid, '?skip=4&limit=2'), alice.token);
    expect(beyond).toEqual({ messages: [], skip: 4, limit: 2, has_more: false });
  });

  it('when two users never wrote to each other, then the conversation is empty; with oneself, it is what one wrote to oneself', async () => {
    const stranger = await registerUser(api);
    expect(await view(api, conversationPath(stranger.uid), alice.token)).toEqual({
      messages: [],
      skip: 0,
      limit: 15,
      has_more: false,
    });
    const dave = await registerWriter(api);
    await post(dave, { content: 'nobody else' });
    const toSelf = await post(dave, { content: 'to myself', recipients: [dave.tag] });
    expect(idsOf(await view(api, conversationPath(dave.uid), dave.token))).toEqual([toSelf.id]);
  });

  it('when the uid names no user, then 404 user_not_found; when malformed, then 422 on uid', async () => {
    const res = await api.request('GET', conversationPath('00000000'), { token: alice.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'user_not_found', detail: 'No such user.' });
    expectValidationError(await api.request('GET', conversationPath('nope'), { token: alice.token }), 'uid');
  });

  it('when nobody is signed in, then 401; when the credential lacks messages.read, then 403 insufficient_scope', async () => {
    expect((await api.request('GET', conversationPath(bob.uid))).status).toBe(401);
    const res = await api.request('GET', conversationPath(bob.uid), { apiKey: await keyWithoutRead() });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when skip or limit is out of range or not a number, then 422 validation_error on that field', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1.5', 'limit'],
      ['skip=-1', 'skip'],
    ] as const) {
      expectValidationError(
        await api.request('GET', conversationPath(bob.uid, `?${query}`), { token: alice.token }),
        field,
      );
    }
  });
});

describe('GET /v1/messages/conversation/{uid} with a recipient of many messages', () => {
  // Beyond CONVERSATION_EXPAND_MAX receivers edges, a direction is read from its author's messages
  // newest first instead of from the recipient's edges; the answers must not change.
  let alice: TestUser, heavy: TestUser, flooder: TestUser;
  let toHeavy: PostedMessage[], fromHeavy: PostedMessage;
  let flood: { id: string; timestamp: string }[];

  /** Posts a chain of `count` messages (each replying to the one before) and answers them. */
  async function chain(
    user: TestUser,
    count: number,
    input: Record<string, unknown>,
  ): Promise<{ id: string; timestamp: string }[]> {
    const items = Array.from({ length: count }, (_, i) => ({
      ...input,
      content: `${String(input.content)} ${i}`,
    }));
    const res = await api.request<{ ok: boolean; message: { id: string; timestamp: string } }[]>(
      'POST',
      '/v1/messages',
      { token: user.token, body: items },
    );
    expect(res.status).toBe(200);
    expect(res.body.every((result) => result.ok)).toBe(true);
    return res.body.map(({ message }) => ({ id: message.id, timestamp: message.timestamp }));
  }

  beforeAll(async () => {
    let carol: TestUser;
    [alice, heavy, flooder, carol] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
      registerUser(api),
    ]);
    flood = [];
    while (flood.length <= CONVERSATION_EXPAND_MAX)
      flood.push(...(await chain(flooder, 100, { content: 'flood', recipients: [heavy.tag] })));
    toHeavy = [await post(alice, { content: 'first to heavy', recipients: [heavy.tag] })];
    // Alice writes to carol in between: the read of her messages passes over these.
    await chain(alice, 5, { content: 'alice to carol', recipients: [carol.tag] });
    fromHeavy = await post(heavy, { content: 'heavy answers', recipients: [alice.tag] });
    toHeavy.push(await post(alice, { content: 'blind to heavy', recipients: [bcc(heavy)] }));
    await chain(alice, 5, { content: 'alice to carol again', recipients: [carol.tag] });
    toHeavy.push(await post(alice, { content: 'last to heavy', recipients: [heavy.tag, carol.tag] }));
  }, 120_000);

  it('when either side reads the conversation, then it is complete, newest first, and pages as usual', async () => {
    const [first, second, third] = toHeavy.map((m) => m.id);
    const expected = [third!, second!, fromHeavy.id, first!];
    expect(idsOf(await view(api, conversationPath(heavy.uid), alice.token))).toEqual(expected);
    expect(idsOf(await view(api, conversationPath(alice.uid), heavy.token))).toEqual(expected);
    for (const [reader, other] of [
      [alice, heavy],
      [heavy, alice],
    ] as const) {
      expect(await allPages(conversationPath(other.uid), reader.token, 3)).toEqual([
        [expected.slice(0, 3), true],
        [expected.slice(3), false],
      ]);
    }
  });

  it('when the conversation is the long one, then deep pages hold the oldest messages and has_more ends it', async () => {
    // Chains posted back to back may overlap in time (each numbers its messages from its own start
    // by the millisecond), so the order is the view's own: time, then id, newest first.
    const newestFirst = [...flood]
      .sort((a, b) => b.timestamp.localeCompare(a.timestamp) || b.id.localeCompare(a.id))
      .map((m) => m.id);
    const head = await view(api, conversationPath(flooder.uid, '?limit=100'), heavy.token);
    expect(idsOf(head)).toEqual(newestFirst.slice(0, 100));
    expect(head.has_more).toBe(true);
    const tail = await view(
      api,
      conversationPath(flooder.uid, `?skip=${flood.length - 3}&limit=5`),
      heavy.token,
    );
    expect(idsOf(tail)).toEqual(newestFirst.slice(-3));
    expect(tail.has_more).toBe(false);
    expect(idsOf(await view(api, conversationPath(heavy.uid, '?limit=2'), flooder.token))).toEqual(
      newestFirst.slice(0, 2),
    );
  });
});

describe('GraphQL threadMessages and conversation', () => {
  const MESSAGE_FIELDS = [
    'id',
    'content',
    'subject',
    'public',
    'timestamp',
    'parent_id',
    'root_id',
    'tags',
    'reply_ids',
    'channel_ids',
    'is_saved',
  ] as const;
  const RECIPIENT_FIELDS = ['uid', 'user_tag', 'public', 'added_by', 'read_at'] as const;
  const SELECTION =
    `messages { ${MESSAGE_FIELDS.join(' ')} author { uid } recipients { ${RECIPIENT_FIELDS.join(' ')} } } ` +
    'skip limit has_more';

  /** The REST page cut down to the fields the GraphQL query selects. */
  function asSelected(page: Page): unknown {
    return {
      ...page,
      messages: page.messages.map((message) => {
        const full = message as unknown as Record<string, unknown> & {
          author: { uid: string };
          recipients: Record<string, unknown>[];
        };
        return {
          ...Object.fromEntries(MESSAGE_FIELDS.map((name) => [name, full[name]])),
          author: { uid: full.author.uid },
          recipients: full.recipients.map((r) => Object.fromEntries(RECIPIENT_FIELDS.map((n) => [n, r[n]]))),
        };
      }),
    };
  }

  let alice: TestUser, bob: TestUser, carol: TestUser;
  let root: PostedMessage, hidden: PostedMessage, tip: PostedMessage;

  beforeAll(async () => {
    [alice, bob, carol] = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
    root = await post(alice, { content: 'gql root', recipients: [bob.tag, bcc(carol)] });
    const answer = await post(bob, { content: 'gql answer', parent_id: root.id, audience: 'parent' });
    hidden = await post(alice, { content: 'gql hidden', parent_id: answer.id });
    tip = await post(bob, { content: 'gql tip', parent_id: answer.id, audience: 'parent' });
    await post(bob, { content: 'gql blind', recipients: [bcc(alice)] });
  });

  it('when the fields are queried with the REST arguments, then they answer what REST answers', async () => {
    const res = await api.graphql<Record<string, unknown>>(
      `query($origin: String!, $alice: String!) {
        whole: threadMessages(message_id: $origin) { ${SELECTION} }
        paged: threadMessages(message_id: $origin, skip: 1, limit: 1) { ${SELECTION} }
        talk: conversation(uid: $alice) { ${SELECTION} }
        talkPaged: conversation(uid: $alice, skip: 2, limit: 1) { ${SELECTION} }
      }`,
      { origin: tip.id, alice: alice.uid },
      { token: bob.token },
    );
    expect(res.body.errors).toBeUndefined();
    const data = res.body.data!;
    const rest = async (path: string) => asSelected(await view(api, path, bob.token));
    expect(data.whole).toEqual(await rest(threadPath(tip.id)));
    expect(data.paged).toEqual(await rest(threadPath(tip.id, '?skip=1&limit=1')));
    expect(data.talk).toEqual(await rest(conversationPath(alice.uid)));
    expect(data.talkPaged).toEqual(await rest(conversationPath(alice.uid, '?skip=2&limit=1')));
    expect(JSON.stringify(data)).not.toContain(hidden.id);
    expect((data.whole as Page).messages).toHaveLength(3);
    expect((data.talk as Page).messages).toHaveLength(4);
  });

  it('when the origin is invisible, the uid unknown or an argument out of range, then the REST errors come back', async () => {
    const errorOf = async (query: string, variables: Record<string, unknown>, token = carol.token) =>
      (await api.graphql(query, variables, { token })).body.errors?.[0]?.extensions;
    expect(
      await errorOf('query($id: String!) { threadMessages(message_id: $id) { has_more } }', { id: tip.id }),
    ).toMatchObject({ code: 'message_not_found', status: 404 });
    expect(
      await errorOf('query($uid: String!) { conversation(uid: $uid) { has_more } }', { uid: '00000000' }),
    ).toMatchObject({ code: 'user_not_found', status: 404 });
    expect(
      await errorOf('query($id: String!) { threadMessages(message_id: $id, limit: 0) { has_more } }', {
        id: root.id,
      }),
    ).toMatchObject({ code: 'validation_error', status: 422 });
    expect(
      await errorOf('query($uid: String!) { conversation(uid: $uid, skip: -1) { has_more } }', {
        uid: alice.uid,
      }),
    ).toMatchObject({ code: 'validation_error', status: 422 });
  });
});
