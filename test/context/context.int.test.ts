// GET /v1/messages/{message_id}/context and GraphQL Query.messageContext (issue 41), and the bot's
// context_origin_id that gives its starting context (POST /v1/users/profile, PATCH and POST
// /v1/managed/users). Rules: docs/decisions/026-conversation-context.md.
import ajv2020 from '@redocly/ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  createManaged,
  postMessage,
  registerUser,
  registerWriter,
  uniqueTag,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { uploadOk } from '../files/file-helpers.js';
import { createChannel, registerChannelOwner } from '../threads/thread-fixtures.js';

interface Entry {
  id: string;
  part: 'starting_context' | 'thread';
  role: 'assistant' | 'user';
  author: { uid: string; user_tag: string; is_bot: boolean };
  content: string;
  timestamp: string;
  attachments: { file_id: string; filename: string; content_type: string; size: number; url: string }[];
}

interface Context {
  message_id: string;
  entries: Entry[];
  truncated: boolean;
}

interface Bot {
  uid: string;
  user_tag: string;
  /** A delegated session of the bot. */
  token: string;
  manager: TestUser;
}

const NOT_FOUND = { detail: 'Message not found.', code: 'message_not_found' };

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const post = (user: { token: string }, input: Record<string, unknown>) => postMessage(api, user.token, input);

function readContext(token: string, id: string, query = '') {
  return api.request<Context>('GET', `/v1/messages/${id}/context${query}`, { token });
}

async function contextOf(user: { token: string }, id: string, query = ''): Promise<Context> {
  const res = await readContext(user.token, id, query);
  if (res.status !== 200) throw new Error(`context answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** "part:content" of each entry, for compact assertions. */
const lines = (context: Context) =>
  context.entries.map((e) => `${e.part === 'thread' ? 't' : 's'}:${e.content}`);

/** A chain of replies by alternating authors, each addressed to the other; answers them in order. */
async function chain(
  first: { token: string; tag?: string; user_tag?: string },
  second: { token: string; tag?: string; user_tag?: string },
  contents: string[],
  parentId: string | null = null,
): Promise<PostedMessage[]> {
  const posted: PostedMessage[] = [];
  let parent = parentId;
  for (const [index, content] of contents.entries()) {
    const [from, to] = index % 2 === 0 ? [first, second] : [second, first];
    const message = await post(from, {
      content,
      recipients: [to.tag ?? to.user_tag],
      ...(parent ? { parent_id: parent } : {}),
    });
    posted.push(message);
    parent = message.id;
  }
  return posted;
}

async function setDefault(user: { token: string }, id: string, child: string | null): Promise<void> {
  const res = await api.request('PATCH', `/v1/messages/${id}/default_outgoing`, {
    token: user.token,
    body: { default_outgoing: child },
  });
  expect(res.status).toBe(200);
}

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

function setOriginAsManager(bot: Bot, origin: string | null, manager: TestUser = bot.manager) {
  return api.request<{ bot: { context_origin_id: string | null } }>('PATCH', `/v1/managed/users/${bot.uid}`, {
    token: manager.token,
    body: { bot: { context_origin_id: origin } },
  });
}

/**
 * The bot's starting context: a root the manager addresses to the bot, and its default chain
 * (each message addressed to the bot, each the default child of the one before).
 */
async function startingChain(bot: Bot, contents: string[]): Promise<PostedMessage[]> {
  const posted = await chain(bot.manager, bot, contents);
  for (let i = 0; i + 1 < posted.length; i++) {
    const author = i % 2 === 0 ? bot.manager : bot;
    await setDefault(author, posted[i]!.id, posted[i + 1]!.id);
  }
  return posted;
}

describe('GET /v1/messages/{message_id}/context: the thread', () => {
  it('when a reply deep in a thread is read, then its ancestors come from the root down, then the message, each with role, author, time and attachments', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const file = await uploadOk(api, alice.token, 'context notes', { filename: 'notes.txt' });
    const root = await post(alice, {
      content: 'a0',
      recipients: [bob.tag],
      files: [{ file_id: file.file_id }],
    });
    const rest = await chain(bob, alice, ['b1', 'a2', 'b3'], root.id);
    const message = rest[2]!;
    // A sibling branch is no ancestor.
    await post(alice, { content: 'sibling', parent_id: root.id, recipients: [bob.tag] });

    const context = await contextOf(bob, message.id);
    expect(context.message_id).toBe(message.id);
    expect(context.truncated).toBe(false);
    expect(lines(context)).toEqual(['t:a0', 't:b1', 't:a2', 't:b3']);
    expect(context.entries.map((e) => e.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(context.entries[0]).toEqual({
      id: root.id,
      part: 'thread',
      role: 'user',
      author: { uid: alice.uid, user_tag: alice.tag, is_bot: false },
      content: 'a0',
      timestamp: root.timestamp,
      attachments: [
        {
          file_id: file.file_id,
          filename: 'notes.txt',
          content_type: file.content_type,
          size: file.size,
          sha256: file.sha256,
          url: file.url,
        },
      ],
    });
    expect(context.entries[3]!.attachments).toEqual([]);
    // Roles are relative to the caller.
    const asAlice = await contextOf(alice, message.id);
    expect(asAlice.entries.map((e) => e.role)).toEqual(['assistant', 'user', 'assistant', 'user']);
  });

  it('when the message is a root, then the context is the message alone', async () => {
    const alice = await registerWriter(api);
    const root = await post(alice, { content: 'alone' });
    expect(await contextOf(alice, root.id)).toEqual({
      message_id: root.id,
      entries: [
        expect.objectContaining({ id: root.id, part: 'thread', role: 'assistant', content: 'alone' }),
      ],
      truncated: false,
    });
  });

  it('when the message is missing or invisible to the caller, then 404 with the same body', async () => {
    const [alice, stranger] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const secret = await post(alice, { content: 'private' });
    const invisible = await readContext(stranger.token, secret.id);
    const missing = await readContext(stranger.token, '0badc0de');
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual(NOT_FOUND);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(invisible.body);
  });

  it('when the credential lacks messages.read, then 403 insufficient_scope', async () => {
    const writer = await registerWriter(api, { apiAccess: true });
    const message = await post(writer, { content: 'read me', public: true });
    const { key } = await createKey(api, writer.token, { scopes_cap: 'messages.write' });
    const res = await api.request('GET', `/v1/messages/${message.id}/context`, { apiKey: key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when an ancestor is invisible to the caller, then it and everything above it are left out, the same answer as when it is missing', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const root = await post(alice, { content: 'to all', recipients: [bob.tag, carol.tag] });
    const hidden = await post(alice, { content: 'bob only', parent_id: root.id, recipients: [bob.tag] });
    const below = await post(bob, { content: 'bob to carol', parent_id: hidden.id, recipients: [carol.tag] });
    const message = await post(carol, {
      content: 'carol answers',
      parent_id: below.id,
      recipients: [bob.tag],
    });

    expect(lines(await contextOf(bob, message.id))).toEqual([
      't:to all',
      't:bob only',
      't:bob to carol',
      't:carol answers',
    ]);
    const whileHidden = await contextOf(carol, message.id);
    expect(lines(whileHidden)).toEqual(['t:bob to carol', 't:carol answers']);
    expect(whileHidden.truncated).toBe(false);
    expect(JSON.stringify(whileHidden)).not.toContain(hidden.id);
    expect(JSON.stringify(whileHidden)).not.toContain(root.id);

    // Deleting the hidden message makes its child a root: carol's answer does not change.
    const deleted = await api.request('DELETE', `/v1/messages/${hidden.id}`, { token: alice.token });
    expect(deleted.status).toBe(200);
    expect(await contextOf(carol, message.id)).toEqual(whileHidden);
  });

  it("when a BCC recipient writes to others, then that message is not in a CC recipient's context, and the BCC entry shows nowhere", async () => {
    const [alice, bob, carol, dave] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const root = await post(alice, {
      content: 'to bob, carol in bcc',
      recipients: [bob.tag, { user_tag: carol.tag, public: false }],
    });
    const carolToDave = await post(carol, {
      content: 'carol to dave',
      parent_id: root.id,
      recipients: [dave.tag],
    });
    const daveToAll = await post(dave, {
      content: 'dave to bob and carol',
      parent_id: carolToDave.id,
      recipients: [bob.tag, carol.tag],
    });

    const asBob = await contextOf(bob, daveToAll.id);
    expect(lines(asBob)).toEqual(['t:dave to bob and carol']);
    expect(JSON.stringify(asBob)).not.toContain(carolToDave.id);
    expect(JSON.stringify(asBob)).not.toContain(carol.uid);
    expect(lines(await contextOf(carol, daveToAll.id))).toEqual([
      't:to bob, carol in bcc',
      't:carol to dave',
      't:dave to bob and carol',
    ]);
    // Dave may not see the root: his context starts at carol's message.
    expect(lines(await contextOf(dave, daveToAll.id))).toEqual([
      't:carol to dave',
      't:dave to bob and carol',
    ]);
    // Bob may not read the context of carol's message at all.
    expect((await readContext(bob.token, carolToDave.id)).body).toEqual(NOT_FOUND);
  });

  it('when the caller leaves a channel, then the channel messages above leave its context', async () => {
    const owner = await registerChannelOwner(api);
    const member = await registerWriter(api);
    const channel = await createChannel(api, owner, [member]);
    const root = await post(owner, { content: 'in the channel', channel_ids: [channel] });
    const reply = await post(owner, {
      content: 'also in the channel',
      parent_id: root.id,
      channel_ids: [channel],
    });
    const direct = await post(owner, {
      content: 'to the member',
      parent_id: reply.id,
      recipients: [member.tag],
    });

    expect(lines(await contextOf(member, direct.id))).toEqual([
      't:in the channel',
      't:also in the channel',
      't:to the member',
    ]);
    const left = await api.request('DELETE', `/v1/channels/${channel}/members/${member.uid}`, {
      token: member.token,
    });
    expect(left.status).toBe(200);
    expect(lines(await contextOf(member, direct.id))).toEqual(['t:to the member']);
    expect((await readContext(member.token, reply.id)).body).toEqual(NOT_FOUND);
  });
});

describe('GET /v1/messages/{message_id}/context: bounds', () => {
  it('when limit is below the depth, then the oldest ancestors are cut and truncated is true', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const posted = await chain(alice, bob, ['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    const last = posted[5]!.id;
    const cut = await contextOf(alice, last, '?limit=3');
    expect(lines(cut)).toEqual(['t:m3', 't:m4', 't:m5']);
    expect(cut.truncated).toBe(true);
    const one = await contextOf(alice, last, '?limit=1');
    expect(lines(one)).toEqual(['t:m5']);
    expect(one.truncated).toBe(true);
    const exact = await contextOf(alice, last, '?limit=6');
    expect(lines(exact)).toHaveLength(6);
    expect(exact.truncated).toBe(false);
  });

  it('when max_chars is reached, then the oldest ancestors are cut, none is skipped over, and the message always comes', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    // Lengths 4, 30, 4, 4, 4 (the message).
    const posted = await chain(alice, bob, ['aaaa', 'b'.repeat(30), 'cccc', 'dddd', 'eeee']);
    const last = posted[4]!.id;
    const cut = await contextOf(alice, last, '?max_chars=14');
    expect(lines(cut)).toEqual(['t:cccc', 't:dddd', 't:eeee']);
    expect(cut.truncated).toBe(true);
    // The 30-character message does not fit in 40 with the three below it; the 4 above it is not taken instead.
    const notSkipped = await contextOf(alice, last, '?max_chars=40');
    expect(lines(notSkipped)).toEqual(['t:cccc', 't:dddd', 't:eeee']);
    const whole = await contextOf(alice, last, '?max_chars=46');
    expect(whole.entries).toHaveLength(5);
    expect(whole.truncated).toBe(false);
    const alone = await contextOf(alice, last, '?max_chars=1');
    expect(lines(alone)).toEqual(['t:eeee']);
    expect(alone.truncated).toBe(true);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=ten', 'limit'],
    ['max_chars=0', 'max_chars'],
    ['max_chars=1000001', 'max_chars'],
    ['max_chars=1e3', 'max_chars'],
  ])('when %s, then 422 validation_error naming the parameter', async (query, name) => {
    const alice = await registerWriter(api);
    const message = await post(alice, { content: 'bounded' });
    const res = await api.request<{ code: string; detail: { loc: string[] }[] }>(
      'GET',
      `/v1/messages/${message.id}/context?${query}`,
      { token: alice.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.detail.map((issue) => issue.loc)).toEqual([['query', name]]);
  });

  it('when the message id is malformed, then 422 validation_error naming it', async () => {
    const alice = await registerWriter(api);
    const res = await api.request<{ code: string; detail: { loc: string[] }[] }>(
      'GET',
      '/v1/messages/NOT-AN-ID/context',
      { token: alice.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail.map((issue) => issue.loc)).toEqual([['path', 'message_id']]);
  });

  it('when no credentials are sent, then 401', async () => {
    const alice = await registerWriter(api);
    const message = await post(alice, { content: 'public but signed-in only', public: true });
    expect((await api.request('GET', `/v1/messages/${message.id}/context`)).status).toBe(401);
  });
});

describe("a bot's starting context (context_origin_id)", () => {
  it('when a manager sets the origin to a root the bot may see, then the bot’s contexts start with that root and its default chain', async () => {
    const bot = await newBot();
    const start = await startingChain(bot, ['you are terse', 'ok', 'example question']);
    const set = await setOriginAsManager(bot, start[0]!.id);
    expect(set.status).toBe(200);
    expect(set.body.bot.context_origin_id).toBe(start[0]!.id);

    const user = await registerWriter(api);
    const question = await post(user, { content: 'hello bot', recipients: [bot.user_tag] });
    const answer = await post(bot, {
      content: 'hello human',
      parent_id: question.id,
      recipients: [user.tag],
    });
    const followUp = await post(user, {
      content: 'and then?',
      parent_id: answer.id,
      recipients: [bot.user_tag],
    });

    const context = await contextOf(bot, followUp.id);
    expect(lines(context)).toEqual([
      's:you are terse',
      's:ok',
      's:example question',
      't:hello bot',
      't:hello human',
      't:and then?',
    ]);
    expect(context.entries.map((e) => e.role)).toEqual([
      'user',
      'assistant',
      'user',
      'user',
      'assistant',
      'user',
    ]);
    expect(context.entries[1]!.author).toEqual({ uid: bot.uid, user_tag: bot.user_tag, is_bot: true });
    expect(context.truncated).toBe(false);
    // The starting context is the bot's: the user reading the same message gets the thread only.
    expect(lines(await contextOf(user, followUp.id))).toEqual([
      't:hello bot',
      't:hello human',
      't:and then?',
    ]);
  });

  it('when the bot sets its own origin through POST /v1/users/profile, then it is used, and null clears it', async () => {
    const bot = await newBot();
    const [origin] = await startingChain(bot, ['persona']);
    const set = await api.request<{ bot: { context_origin_id: string | null } }>(
      'POST',
      '/v1/users/profile',
      {
        token: bot.token,
        body: { context_origin_id: origin!.id },
      },
    );
    expect(set.status).toBe(200);
    expect(set.body.bot.context_origin_id).toBe(origin!.id);
    const question = await post(bot.manager, { content: 'a question', recipients: [bot.user_tag] });
    expect(lines(await contextOf(bot, question.id))).toEqual(['s:persona', 't:a question']);

    const cleared = await api.request<{ bot: { context_origin_id: string | null } }>(
      'POST',
      '/v1/users/profile',
      {
        token: bot.token,
        body: { bot: { context_origin_id: null } },
      },
    );
    expect(cleared.status).toBe(200);
    expect(cleared.body.bot.context_origin_id).toBeNull();
    expect(lines(await contextOf(bot, question.id))).toEqual(['t:a question']);
  });

  it('when the origin is missing or one the bot may not see, then 404 as for a missing message, even if the manager sees it, and nothing changes', async () => {
    const bot = await newBot();
    const [kept] = await startingChain(bot, ['kept']);
    expect((await setOriginAsManager(bot, kept!.id)).status).toBe(200);
    const managersOwn = await post(bot.manager, { content: 'not for the bot' });
    const invisible = await setOriginAsManager(bot, managersOwn.id);
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual(NOT_FOUND);
    const missing = await setOriginAsManager(bot, '0badc0de');
    expect(missing.body).toEqual(invisible.body);
    const own = await api.request('POST', '/v1/users/profile', {
      token: bot.token,
      body: { display_name: 'Not Kept', context_origin_id: managersOwn.id },
    });
    expect(own.status).toBe(404);
    expect(own.body).toEqual(NOT_FOUND);
    const me = await api.request<{ display_name: string | null; bot: { context_origin_id: string } }>(
      'GET',
      '/v1/users/me',
      { token: bot.token },
    );
    expect(me.body.display_name).toBeNull();
    expect(me.body.bot.context_origin_id).toBe(kept!.id);
  });

  it('when the origin has a reply parent, then 422 not_a_root naming the field', async () => {
    const bot = await newBot();
    const [, reply] = await startingChain(bot, ['root', 'a reply']);
    const byManager = await setOriginAsManager(bot, reply!.id);
    expect(byManager.status).toBe(422);
    expect(byManager.body).toMatchObject({
      code: 'validation_error',
      detail: [{ loc: ['body', 'bot', 'context_origin_id'], type: 'not_a_root' }],
    });
    const byBot = await api.request('POST', '/v1/users/profile', {
      token: bot.token,
      body: { context_origin_id: reply!.id },
    });
    expect(byBot.status).toBe(422);
    expect(byBot.body).toMatchObject({
      detail: [{ loc: ['body', 'context_origin_id'], type: 'not_a_root' }],
    });
  });

  it('when a non-bot sets an origin, then 422 not_a_bot; with is_bot true in the same edit it is kept', async () => {
    const human = await registerWriter(api);
    const root = await post(human, { content: 'my root' });
    const refused = await api.request('POST', '/v1/users/profile', {
      token: human.token,
      body: { context_origin_id: root.id },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      detail: [{ loc: ['body', 'context_origin_id'], type: 'not_a_bot' }],
    });
    const asBot = await api.request<{ bot: { context_origin_id: string } }>('POST', '/v1/users/profile', {
      token: human.token,
      body: { is_bot: true, bot: { context_origin_id: root.id } },
    });
    expect(asBot.status).toBe(200);
    expect(asBot.body.bot.context_origin_id).toBe(root.id);
    const reply = await post(human, { content: 'a reply to myself', parent_id: root.id });
    // The origin is also the reply's root: it is not repeated in the thread part.
    expect(lines(await contextOf(human, reply.id))).toEqual(['s:my root', 't:a reply to myself']);
    const other = await post(human, { content: 'elsewhere' });
    expect(lines(await contextOf(human, other.id))).toEqual(['s:my root', 't:elsewhere']);
  });

  it('when someone who does not manage the bot sets its origin, then 403 not_manager, whatever the bot may see', async () => {
    const bot = await newBot();
    const stranger = await registerWriter(api);
    const [origin] = await startingChain(bot, ['root']);
    const res = await setOriginAsManager(bot, origin!.id, stranger);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'not_manager' });
    const unseen = await setOriginAsManager(bot, '0badc0de', stranger);
    expect(unseen.body).toEqual(res.body);
  });

  it('when a bot is created with an origin, then it must be a public root', async () => {
    const manager = await registerWriter(api);
    const publicRoot = await post(manager, { content: 'public persona', public: true });
    const privateRoot = await post(manager, { content: 'private persona' });
    const created = await api.request<{ bot: { context_origin_id: string } }>('POST', '/v1/managed/users', {
      token: manager.token,
      body: { user_tag: uniqueTag('ctx'), is_bot: true, bot: { context_origin_id: publicRoot.id } },
    });
    expect(created.status).toBe(201);
    expect(created.body.bot.context_origin_id).toBe(publicRoot.id);
    const tag = uniqueTag('ctx');
    const refused = await api.request('POST', '/v1/managed/users', {
      token: manager.token,
      body: { user_tag: tag, is_bot: true, bot: { context_origin_id: privateRoot.id } },
    });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual(NOT_FOUND);
    // Nothing was created: the tag is still free.
    expect((await api.request('GET', `/v1/users/by-tag/${tag}`, { token: manager.token })).status).toBe(404);
  });

  it('when a chain member becomes invisible to the bot, then the starting context stops before it, even where later members are visible', async () => {
    const bot = await newBot();
    const other = await registerWriter(api);
    const start = await startingChain(bot, ['s0', 's1']);
    // s2 goes to someone else only; s3 below it is addressed to the bot again.
    const hidden = await post(bot.manager, {
      content: 's2',
      parent_id: start[1]!.id,
      recipients: [other.tag],
    });
    const after = await post(bot.manager, {
      content: 's3',
      parent_id: hidden.id,
      recipients: [bot.user_tag],
    });
    // The bot may not see s2, so its manager (who wrote it) names it as s1's default child.
    await setDefault(bot.manager, start[1]!.id, hidden.id);
    await setDefault(bot.manager, hidden.id, after.id);
    expect((await setOriginAsManager(bot, start[0]!.id)).status).toBe(200);

    const question = await post(other, { content: 'q', recipients: [bot.user_tag] });
    const context = await contextOf(bot, question.id);
    expect(lines(context)).toEqual(['s:s0', 's:s1', 't:q']);
    expect(context.truncated).toBe(false);
    expect(JSON.stringify(context)).not.toContain(hidden.id);
    expect(JSON.stringify(context)).not.toContain(after.id);

    // Once the origin itself is hidden from the bot (its receivers edge removed), there is no starting context.
    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: bot.manager.token,
      body: { recipient_uid: bot.uid, message_id: start[0]!.id },
    });
    expect(removed.status).toBe(200);
    expect(lines(await contextOf(bot, question.id))).toEqual(['t:q']);
  });

  it('when the default chain goes through stitches and comes back to a message it holds, then each message comes once and the chain ends there', async () => {
    const bot = await newBot();
    const [origin] = await startingChain(bot, ['origin']);
    const [elsewhere] = await startingChain(bot, ['stitched root']);
    for (const [from, to] of [
      [origin!.id, elsewhere!.id],
      [elsewhere!.id, origin!.id],
    ]) {
      const res = await api.request('POST', `/v1/links/messages/${from}/${to}`, { token: bot.manager.token });
      expect(res.status).toBe(200);
    }
    await setDefault(bot.manager, origin!.id, elsewhere!.id);
    await setDefault(bot.manager, elsewhere!.id, origin!.id);
    expect((await setOriginAsManager(bot, origin!.id)).status).toBe(200);
    const question = await post(bot.manager, { content: 'q', recipients: [bot.user_tag] });
    const context = await contextOf(bot, question.id);
    expect(lines(context)).toEqual(['s:origin', 's:stitched root', 't:q']);
    expect(context.truncated).toBe(false);
  });

  it('when limits cut a bot’s context, then ancestors go first, oldest first, then the end of the starting context', async () => {
    const bot = await newBot();
    const start = await startingChain(bot, ['s0', 's1', 's2']);
    expect((await setOriginAsManager(bot, start[0]!.id)).status).toBe(200);
    const user = await registerWriter(api);
    const thread = await chain(user, bot, ['t0', 't1', 't2', 't3']);
    const last = thread[3]!.id;

    expect(lines(await contextOf(bot, last, '?limit=5'))).toEqual(['s:s0', 's:s1', 's:s2', 't:t2', 't:t3']);
    expect(lines(await contextOf(bot, last, '?limit=3'))).toEqual(['s:s0', 's:s1', 't:t3']);
    const cut = await contextOf(bot, last, '?max_chars=10');
    expect(lines(cut)).toEqual(['s:s0', 's:s1', 's:s2', 't:t2', 't:t3']);
    expect(cut.truncated).toBe(true);
    expect((await contextOf(bot, last, '?limit=7')).truncated).toBe(false);
  });

  it('when the message is in the bot’s own origin thread, then the ancestors the starting context holds are not repeated', async () => {
    const bot = await newBot();
    const start = await startingChain(bot, ['s0', 's1', 's2']);
    expect((await setOriginAsManager(bot, start[0]!.id)).status).toBe(200);
    const branch = await post(bot.manager, {
      content: 'branch',
      parent_id: start[1]!.id,
      recipients: [bot.user_tag],
    });
    expect(lines(await contextOf(bot, branch.id))).toEqual(['s:s0', 's:s1', 's:s2', 't:branch']);
    // The chain stops before the message itself.
    expect(lines(await contextOf(bot, start[2]!.id))).toEqual(['s:s0', 's:s1', 't:s2']);
    expect(lines(await contextOf(bot, start[0]!.id))).toEqual(['t:s0']);
  });
});

describe('GraphQL messageContext', () => {
  const QUERY = `query ($id: String!, $limit: Int, $max_chars: Int) {
    messageContext(message_id: $id, limit: $limit, max_chars: $max_chars) {
      message_id truncated
      entries { id part role content timestamp author { uid user_tag is_bot }
                attachments { file_id filename content_type size sha256 url } }
    }
  }`;

  it('when a bot reads a context through GraphQL, then it equals the REST answer', async () => {
    const bot = await newBot();
    const start = await startingChain(bot, ['persona', 'example']);
    expect((await setOriginAsManager(bot, start[0]!.id)).status).toBe(200);
    const user = await registerWriter(api);
    const file = await uploadOk(api, user.token, 'attached', { filename: 'a.txt' });
    const question = await post(user, {
      content: 'question with a file',
      recipients: [bot.user_tag],
      files: [{ file_id: file.file_id }],
    });
    const answer = await post(bot, { content: 'answer', parent_id: question.id, recipients: [user.tag] });

    for (const query of ['', '?limit=3', '?max_chars=20']) {
      const rest = await contextOf(bot, answer.id, query);
      const variables = Object.fromEntries(
        [...new URLSearchParams(query)].map(([name, value]) => [name, Number(value)]),
      );
      const gql = await api.graphql<{ messageContext: Context }>(
        QUERY,
        { id: answer.id, ...variables },
        { token: bot.token },
      );
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data?.messageContext).toEqual(rest);
    }
  });

  it('when the message is invisible, or limit is out of range, then the same codes as REST', async () => {
    const [alice, stranger] = await Promise.all([registerWriter(api), registerUser(api)]);
    const secret = await post(alice, { content: 'secret' });
    const hidden = await api.graphql(QUERY, { id: secret.id }, { token: stranger.token });
    expect(hidden.body.data).toBeNull();
    expect(hidden.body.errors?.[0]).toMatchObject({
      message: 'Message not found.',
      extensions: { code: 'message_not_found', status: 404 },
    });
    const tooMany = await api.graphql(QUERY, { id: secret.id, limit: 501 }, { token: alice.token });
    expect(tooMany.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      status: 422,
      detail: [expect.objectContaining({ loc: ['args', 'limit'] })],
    });
  });

  it('when a manager sets an origin that is not a root through GraphQL, then 422 naming the argument', async () => {
    const bot = await newBot();
    const [, reply] = await startingChain(bot, ['root', 'reply']);
    const res = await api.graphql(
      `mutation ($uid: String!, $input: ManagedUserUpdateInput!) { updateManagedUser(uid: $uid, input: $input) { uid } }`,
      { uid: bot.uid, input: { bot: { context_origin_id: reply!.id } } },
      { token: bot.manager.token },
    );
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      status: 422,
      detail: [{ loc: ['args', 'bot', 'context_origin_id'], msg: expect.any(String), type: 'not_a_root' }],
    });
  });
});

describe('GET /v1/messages/{message_id}/context in the OpenAPI document', () => {
  it('when answers are checked against the published document, then the context, its 404 and its 422 are valid', async () => {
    const doc = (await api.request<Record<string, unknown>>('GET', '/v1/openapi.json')).body;
    // A CommonJS module: its default export is the class. OpenAPI's own keywords are not JSON Schema's.
    const ajv = new ajv2020.default({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(doc, 'openapi');
    const answerErrors = (status: number, body: unknown): string[] => {
      const validate = ajv.getSchema(
        `openapi#/paths/~1v1~1messages~1{message_id}~1context/get/responses/${status}/content/application~1json/schema`,
      );
      if (!validate) throw new Error(`no documented ${status} answer`);
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    };

    const bot = await newBot();
    const start = await startingChain(bot, ['persona']);
    expect((await setOriginAsManager(bot, start[0]!.id)).status).toBe(200);
    const file = await uploadOk(api, bot.manager.token, 'attached', { filename: 'b.txt' });
    const question = await post(bot.manager, {
      content: 'documented',
      recipients: [bot.user_tag],
      files: [{ file_id: file.file_id }],
    });
    const answered = await readContext(bot.token, question.id);
    expect(answered.status).toBe(200);
    expect(answered.body.entries.map((e) => e.part)).toEqual(['starting_context', 'thread']);
    expect(answerErrors(200, answered.body)).toEqual([]);
    const missing = await readContext(bot.token, '0badc0de');
    expect(answerErrors(404, missing.body)).toEqual([]);
    const invalid = await readContext(bot.token, question.id, '?limit=0');
    expect(invalid.status).toBe(422);
    expect(answerErrors(422, invalid.body)).toEqual([]);
  });
});
