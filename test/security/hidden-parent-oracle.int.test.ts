// Security review 2026-12-02, #4 (issue 50, item 5): no answer tells a hidden reply parent from none.
// A message whose parent the caller may not see is a root to that caller: it may be a bot's
// context origin exactly as a real root may (PATCH /v1/managed/users/{uid}, POST
// /v1/users/profile), and it shows parent_id null and root_id its own id, as a real root does.
// Below a parent the caller sees, a message whose thread root is hidden shows the topmost ancestor
// reached through parents the caller sees. The same rule holds wherever a root is named: GET
// /v1/messages/{id} (and `fields=`), the views, traverse, tree-ids, unread counts, post answers
// and GraphQL (cypher/fragments/shown-root.cypher, message-output.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createManaged,
  postMessage,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Shown {
  id: string;
  parent_id: string | null;
  root_id: string | null;
}

interface Bot {
  uid: string;
  user_tag: string;
  /** A delegated session of the bot. */
  token: string;
  manager: TestUser;
}

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const post = (user: { token: string }, input: Record<string, unknown>) => postMessage(api, user.token, input);

/** A bot of a fresh manager (with partner access), with a delegated session. */
async function newBot(): Promise<Bot> {
  const manager = await registerWriter(api, { apiAccess: true });
  const created = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: created.uid },
  });
  expect(delegated.status).toBe(200);
  return { ...created, token: delegated.body.access_token, manager };
}

/** [parent_id, root_id] of a message as `token` reads it (GET /v1/messages/{id}). */
async function lineageOf(token: string, id: string): Promise<[string | null, string | null]> {
  const res = await api.request<Shown>('GET', `/v1/messages/${id}`, { token });
  expect(res.status).toBe(200);
  return [res.body.parent_id, res.body.root_id];
}

function setOriginAsManager(bot: Bot, origin: string) {
  return api.request<{ bot: { context_origin_id: string | null } }>('PATCH', `/v1/managed/users/${bot.uid}`, {
    token: bot.manager.token,
    body: { bot: { context_origin_id: origin } },
  });
}

function setOriginAsBot(bot: Bot, origin: string) {
  return api.request<{ bot: { context_origin_id: string | null } }>('POST', '/v1/users/profile', {
    token: bot.token,
    body: { context_origin_id: origin },
  });
}

describe('a reply whose parent the bot may not see, as a context origin', () => {
  let bot: Bot, alice: TestUser, bob: TestUser;
  let hiddenParent: PostedMessage, reply: PostedMessage, realRoot: PostedMessage, visibleReply: PostedMessage;

  beforeAll(async () => {
    // The review's set-up: alice posts P to bob only, then reply R to the bot; its manager sets origins.
    [bot, alice, bob] = await Promise.all([newBot(), registerWriter(api), registerWriter(api)]);
    hiddenParent = await post(alice, { content: 'P, for bob only', recipients: [bob.tag] });
    reply = await post(alice, {
      content: 'R, for the bot',
      parent_id: hiddenParent.id,
      recipients: [bot.user_tag],
    });
    realRoot = await post(alice, { content: 'Q, a real root', recipients: [bot.user_tag] });
    visibleReply = await post(alice, {
      content: 'under Q',
      parent_id: realRoot.id,
      recipients: [bot.user_tag],
    });
  });

  it('when its manager sets it, then 200 exactly as for a real root', async () => {
    for (const origin of [realRoot, reply]) {
      const res = await setOriginAsManager(bot, origin.id);
      expect([res.status, res.body.bot.context_origin_id]).toEqual([200, origin.id]);
    }
  });

  it('when the bot sets it through POST /v1/users/profile, then 200 exactly as for a real root', async () => {
    for (const origin of [realRoot, reply]) {
      const res = await setOriginAsBot(bot, origin.id);
      expect([res.status, res.body.bot.context_origin_id]).toEqual([200, origin.id]);
    }
  });

  it('when the origin has a parent the bot may see, then still 422 not_a_root; the hidden parent and an unknown id answer the same 404', async () => {
    for (const res of [
      await setOriginAsManager(bot, visibleReply.id),
      await setOriginAsBot(bot, visibleReply.id),
    ]) {
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ detail: [{ type: 'not_a_root' }] });
    }
    const hidden = await setOriginAsManager(bot, hiddenParent.id);
    const unknown = await setOriginAsManager(bot, '0badc0de');
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(unknown.body);
  });

  it('when it is the origin, then the bot’s contexts start with it, as with a real root', async () => {
    expect((await setOriginAsManager(bot, reply.id)).status).toBe(200);
    const question = await post(bob, { content: 'a question', recipients: [bot.user_tag] });
    const context = await api.request<{ entries: { part: string; content: string }[] }>(
      'GET',
      `/v1/messages/${question.id}/context`,
      { token: bot.token },
    );
    expect(context.status).toBe(200);
    expect(context.body.entries.map((e) => `${e.part}:${e.content}`)).toEqual([
      'starting_context:R, for the bot',
      'thread:a question',
    ]);
  });

  it('when the bot reads it, then parent_id is null and root_id its own id, exactly as a real root shows', async () => {
    expect(await lineageOf(bot.token, realRoot.id)).toEqual([null, realRoot.id]);
    expect(await lineageOf(bot.token, reply.id)).toEqual([null, reply.id]);
    // Its author, who sees the parent, is shown the thread as it is.
    expect(await lineageOf(alice.token, reply.id)).toEqual([hiddenParent.id, hiddenParent.id]);

    const sparse = await api.request<{ messages: Shown[] }>(
      'GET',
      `/v1/messages/${reply.id}/thread?fields=parent_id,root_id`,
      { token: bot.token },
    );
    expect(sparse.body.messages).toEqual([{ id: reply.id, parent_id: null, root_id: reply.id }]);
    const tree = await api.request('GET', `/v1/messages/${reply.id}/tree-ids`, { token: bot.token });
    expect(tree.body).toEqual({ root_id: reply.id, ids: [reply.id] });
    const unread = await api.request<{ threads: { root_id: string | null; latest_message_id: string }[] }>(
      'GET',
      '/v1/messages/unread',
      { token: bot.token },
    );
    expect(unread.body.threads.find((t) => t.latest_message_id === reply.id)?.root_id).toBe(reply.id);

    const graph = await api.graphql<{
      message: { parent_id: string | null; root_id: string | null };
      treeIds: { root_id: string | null };
    }>(
      'query ($id: String!) { message(message_id: $id) { parent_id root_id } treeIds(message_id: $id) { root_id } }',
      { id: reply.id },
      { token: bot.token },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data).toEqual({
      message: { parent_id: null, root_id: reply.id },
      treeIds: { root_id: reply.id },
    });
  });
});

describe('a message whose parent the caller sees but whose thread root it does not', () => {
  let bot: Bot, alice: TestUser, bob: TestUser;
  let hiddenRoot: PostedMessage, top: PostedMessage, middle: PostedMessage, leaf: PostedMessage;

  beforeAll(async () => {
    // hiddenRoot (alice → bob) ── top ── middle ── leaf, the last three alice → the bot.
    [bot, alice, bob] = await Promise.all([newBot(), registerWriter(api), registerWriter(api)]);
    hiddenRoot = await post(alice, { content: 'for bob only', recipients: [bob.tag] });
    top = await post(alice, { content: 'top', parent_id: hiddenRoot.id, recipients: [bot.user_tag] });
    middle = await post(alice, { content: 'middle', parent_id: top.id, recipients: [bot.user_tag] });
    leaf = await post(alice, { content: 'leaf', parent_id: middle.id, recipients: [bot.user_tag] });
  });

  it('when read alone, then root_id is the topmost ancestor reached through parents the caller sees', async () => {
    expect(await lineageOf(bot.token, top.id)).toEqual([null, top.id]);
    expect(await lineageOf(bot.token, middle.id)).toEqual([top.id, top.id]);
    expect(await lineageOf(bot.token, leaf.id)).toEqual([middle.id, top.id]);
    expect(await lineageOf(alice.token, leaf.id)).toEqual([middle.id, hiddenRoot.id]);
  });

  it('when read through views, traverse and tree-ids, then every answer names the same root', async () => {
    const shownRoots = (messages: Shown[]) => Object.fromEntries(messages.map((m) => [m.id, m.root_id]));
    const expected = { [top.id]: top.id, [middle.id]: top.id, [leaf.id]: top.id };

    const thread = await api.request<{ messages: Shown[] }>('GET', `/v1/messages/${leaf.id}/thread`, {
      token: bot.token,
    });
    expect(shownRoots(thread.body.messages)).toEqual(expected);
    const sparse = await api.request<{ messages: Shown[] }>(
      'GET',
      `/v1/messages/${leaf.id}/thread?fields=root_id`,
      { token: bot.token },
    );
    expect(shownRoots(sparse.body.messages)).toEqual(expected);
    const conversation = await api.request<{ messages: Shown[] }>(
      'GET',
      `/v1/messages/conversation/${alice.uid}`,
      { token: bot.token },
    );
    expect(shownRoots(conversation.body.messages)).toEqual(expected);
    const walk = await api.request<{ messages: Shown[] }>(
      'GET',
      `/v1/messages/traverse-from/${leaf.id}?up_depth=10`,
      { token: bot.token },
    );
    expect(shownRoots(walk.body.messages)).toEqual(expected);
    for (const id of [top.id, middle.id, leaf.id]) {
      const tree = await api.request('GET', `/v1/messages/${id}/tree-ids`, { token: bot.token });
      expect(tree.body).toEqual({ root_id: top.id, ids: [top.id, middle.id, leaf.id] });
    }
    const unread = await api.request<{ threads: { root_id: string | null; latest_message_id: string }[] }>(
      'GET',
      '/v1/messages/unread',
      { token: bot.token },
    );
    expect(unread.body.threads).toEqual([
      expect.objectContaining({ root_id: top.id, latest_message_id: leaf.id }),
    ]);

    const graph = await api.graphql<{
      message: { root_id: string | null };
      treeIds: { root_id: string | null };
      threadMessages: { messages: { id: string; root_id: string | null }[] };
    }>(
      `query ($id: String!) {
        message(message_id: $id) { root_id }
        treeIds(message_id: $id) { root_id }
        threadMessages(message_id: $id) { messages { id root_id } }
      }`,
      { id: leaf.id },
      { token: bot.token },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data!.message.root_id).toBe(top.id);
    expect(graph.body.data!.treeIds.root_id).toBe(top.id);
    expect(shownRoots(graph.body.data!.threadMessages.messages as Shown[])).toEqual(expected);
  });

  it('when the caller replies, then the post’s answer names that root, as a read right after does', async () => {
    const res = await api.request<{ ok: boolean; message: Shown }[]>('POST', '/v1/messages', {
      token: bot.token,
      body: [
        { content: 'the bot answers', parent_id: leaf.id, recipients: [alice.tag] },
        // A later item of a post replies to the one before it (a reply written in the same post).
        { content: 'and goes on', recipients: [alice.tag] },
      ],
    });
    expect(res.status).toBe(200);
    const [answer, followUp] = res.body.map((item) => item.message);
    expect([answer!.parent_id, answer!.root_id]).toEqual([leaf.id, top.id]);
    expect([followUp!.parent_id, followUp!.root_id]).toEqual([answer!.id, top.id]);
    for (const written of [answer!, followUp!]) {
      expect(await lineageOf(bot.token, written.id)).toEqual([written.parent_id, top.id]);
      expect((await lineageOf(alice.token, written.id))[1]).toBe(hiddenRoot.id);
    }
  });

  it('when a hidden message lies between visible ones, then the walk up stops below it', async () => {
    // hiddenRoot ── top ── aside (alice → bob only) ── under ── below: the bot sees top, under, below.
    const aside = await post(alice, { content: 'aside', parent_id: top.id, recipients: [bob.tag] });
    const under = await post(alice, { content: 'under', parent_id: aside.id, recipients: [bot.user_tag] });
    const below = await post(alice, { content: 'below', parent_id: under.id, recipients: [bot.user_tag] });
    expect(await lineageOf(bot.token, under.id)).toEqual([null, under.id]);
    expect(await lineageOf(bot.token, below.id)).toEqual([under.id, under.id]);
    const tree = await api.request<{ root_id: string }>('GET', `/v1/messages/${below.id}/tree-ids`, {
      token: bot.token,
    });
    expect(tree.body.root_id).toBe(under.id);
  });
});

describe('the accepted residual (docs/security.md): the thread root visible, a message between hidden', () => {
  it('when the caller reads below the hidden message, then that message’s child is a root to it, and the child’s replies name the stored root', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const root = await post(alice, { content: 'root', recipients: [bob.tag, carol.tag] });
    const hidden = await post(alice, { content: 'hidden', parent_id: root.id, recipients: [carol.tag] });
    const child = await post(alice, { content: 'child', parent_id: hidden.id, recipients: [bob.tag] });
    const grandchild = await post(alice, {
      content: 'grandchild',
      parent_id: child.id,
      recipients: [bob.tag],
    });
    expect(await lineageOf(bob.token, child.id)).toEqual([null, child.id]);
    // Walking up for every reply whose root is visible would cost every page read a walk.
    expect(await lineageOf(bob.token, grandchild.id)).toEqual([child.id, root.id]);
  });
});
