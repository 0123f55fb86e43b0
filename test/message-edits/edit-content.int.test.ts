// Content edits: PATCH /v1/messages/{message_id}/content, GET /v1/messages/{message_id}/edits,
// MessageOutput.edited_at, the message.updated event with the change `content`, search and export
// reading the current content, deletion taking the history with it, and the GraphQL fields
// editMessageContent and messageEdits.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_CONTENT_CHARS } from '../../src/components/messages/messages.schemas.js';
import { MAX_KEPT_VERSIONS } from '../../src/components/messages/message-edits.schemas.js';
import { loginAdmin, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket } from '../support/ws-client.js';
import {
  MISSING_ID,
  TIMESTAMP,
  expectError,
  managerWithBot,
  post,
  readOk,
  type Message,
} from './edit-helpers.js';

interface Edited extends Message {
  edited_at: string | null;
}

interface MessageEdits {
  message_id: string;
  edits: { content: string; edited_at: string; edited_by: { uid: string; user_tag: string | null } }[];
}

interface Notification {
  event: {
    type: string;
    content: { messages?: { id: string; content: string }[]; changes?: string[] };
  };
}

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob, carol] = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
});
afterAll(async () => {
  closeAllSockets();
  await api.close();
});

function edit(token: string, id: string, body: unknown): Promise<ApiResponse<Edited>> {
  return api.request<Edited>('PATCH', `/v1/messages/${id}/content`, { token, body });
}

async function editOk(token: string, id: string, content: string): Promise<Edited> {
  const res = await edit(token, id, { content });
  expect(res.status).toBe(200);
  return res.body;
}

function edits(token: string, id: string): Promise<ApiResponse<MessageEdits>> {
  return api.request<MessageEdits>('GET', `/v1/messages/${id}/edits`, { token });
}

async function editsOk(token: string, id: string): Promise<MessageEdits> {
  const res = await edits(token, id);
  expect(res.status).toBe(200);
  return res.body;
}

/** The `message.updated` events about `id` with the change `content` that `user` was handed. */
async function contentEvents(user: TestUser, id: string): Promise<Notification[]> {
  const res = await api.request<{ notifications: Notification[] }>('GET', '/v1/notifications?limit=100', {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.notifications.filter(
    (n) =>
      n.event.type === 'message.updated' &&
      (n.event.content.changes ?? []).includes('content') &&
      (n.event.content.messages ?? []).some((m) => m.id === id),
  );
}

async function versionCount(id: string): Promise<number> {
  const [row] = await api.ctx.db.runText(
    'MATCH (:Message {id: $id})-[:PREVIOUS_VERSION]->(v:MessageVersion) RETURN count(v) AS n',
    { id },
  );
  return row!.n as number;
}

/** A word no other test uses, so the shared store cannot disturb search results. */
function word(): string {
  return `w${randomBytes(5).toString('hex')}`;
}

describe('PATCH /v1/messages/{message_id}/content', () => {
  it('when the author edits, then 200 with the new content and edited_at, and every read shows them', async () => {
    const m = await post(api, alice.token, { content: 'first draft', recipients: [bob.tag] });
    expect((m as Edited).edited_at).toBeNull();
    const before = Date.now();
    const res = await editOk(alice.token, m.id, 'second draft');
    expect(res).toMatchObject({
      id: m.id,
      content: 'second draft',
      edited_at: expect.stringMatching(TIMESTAMP),
    });
    expect(Date.parse(res.edited_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(res.timestamp).toBe(m.timestamp);

    const asBob = (await readOk(api, bob.token, m.id)) as Edited;
    expect({ content: asBob.content, edited_at: asBob.edited_at }).toEqual({
      content: 'second draft',
      edited_at: res.edited_at,
    });
    const sparse = await api.request<{ messages: Record<string, unknown>[] }>(
      'GET',
      `/v1/messages/${m.id}/thread?fields=content,edited_at`,
      { token: bob.token },
    );
    expect(sparse.body.messages).toEqual([{ id: m.id, content: 'second draft', edited_at: res.edited_at }]);
  });

  it('when the author edits twice, then the history lists both replaced contents, oldest first', async () => {
    const m = await post(api, alice.token, { content: 'one' });
    const second = await editOk(alice.token, m.id, 'two');
    const third = await editOk(alice.token, m.id, 'three');
    expect(await editsOk(alice.token, m.id)).toEqual({
      message_id: m.id,
      edits: [
        { content: 'one', edited_at: second.edited_at, edited_by: { uid: alice.uid, user_tag: alice.tag } },
        { content: 'two', edited_at: third.edited_at, edited_by: { uid: alice.uid, user_tag: alice.tag } },
      ],
    });
    expect(Date.parse(third.edited_at!)).toBeGreaterThanOrEqual(Date.parse(second.edited_at!));
  });

  it('when the content is identical, then 200 with the message unchanged: no history entry, no new edited_at, no event', async () => {
    const m = await post(api, alice.token, { content: 'steady', recipients: [bob.tag] });
    const same = await editOk(alice.token, m.id, 'steady');
    expect({ content: same.content, edited_at: same.edited_at }).toEqual({
      content: 'steady',
      edited_at: null,
    });
    expect((await editsOk(alice.token, m.id)).edits).toEqual([]);
    expect(await contentEvents(bob, m.id)).toEqual([]);

    const changed = await editOk(alice.token, m.id, 'moved');
    const again = await editOk(alice.token, m.id, 'moved');
    expect(again.edited_at).toBe(changed.edited_at);
    expect((await editsOk(alice.token, m.id)).edits.map((e) => e.content)).toEqual(['steady']);
    expect(await contentEvents(bob, m.id)).toHaveLength(1);
  });

  it('when a recipient who is not the author edits, then 403 not_author and nothing changes', async () => {
    const m = await post(api, alice.token, { content: 'mine', recipients: [bob.tag], public: true });
    expectError(await edit(bob.token, m.id, { content: 'hijacked' }), 403, 'not_author');
    expectError(await edit(carol.token, m.id, { content: 'public, still not yours' }), 403, 'not_author');
    expectError(await edit(await loginAdmin(api), m.id, { content: 'admin' }), 403, 'not_author');
    const now = (await readOk(api, alice.token, m.id)) as Edited;
    expect({ content: now.content, edited_at: now.edited_at }).toEqual({ content: 'mine', edited_at: null });
    expect(await versionCount(m.id)).toBe(0);
  });

  it('when a stranger edits a message they cannot see, then the same 404 as a missing message', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    const hidden = await edit(carol.token, m.id, { content: 'x' });
    const missing = await edit(carol.token, MISSING_ID, { content: 'x' });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
    expect((await readOk(api, alice.token, m.id)).content).toBe('private');
  });

  it('when the manager of a bot author edits with its own token, then 200 and the history names the manager; through a delegated token, the bot', async () => {
    const { manager, bot, botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'beep', recipients: [manager.tag] });
    await editOk(manager.token, m.id, 'beep boop');
    await editOk(botToken, m.id, 'boop');
    const history = await editsOk(manager.token, m.id);
    expect(history.edits.map((e) => ({ content: e.content, by: e.edited_by }))).toEqual([
      { content: 'beep', by: { uid: manager.uid, user_tag: manager.tag } },
      { content: 'beep boop', by: { uid: bot.uid, user_tag: bot.user_tag } },
    ]);
    expect((await readOk(api, manager.token, m.id)).content).toBe('boop');
  });

  it('when the content is empty, too long, not a string or missing, then 422 and nothing is stored', async () => {
    const m = await post(api, alice.token, { content: 'valid' });
    for (const body of [
      { content: '' },
      { content: 'x'.repeat(MAX_CONTENT_CHARS + 1) },
      { content: 7 },
      {},
    ]) {
      const res = await edit(alice.token, m.id, body);
      expectError(res, 422, 'validation_error');
      expect((res.body as unknown as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual([
        'body',
        'content',
      ]);
    }
    expectError(await edit(alice.token, m.id, { content: 'ok', extra: true }), 422, 'validation_error');
    const longest = await editOk(alice.token, m.id, 'y'.repeat(MAX_CONTENT_CHARS));
    expect(longest.content).toHaveLength(MAX_CONTENT_CHARS);
    expect((await editsOk(alice.token, m.id)).edits.map((e) => e.content)).toEqual(['valid']);
  });

  it('when a reader without messages.write edits, then 403 insufficient_scope', async () => {
    const reader = await registerUser(api);
    const m = await post(api, alice.token, { content: 'read only', recipients: [reader.tag] });
    expectError(await edit(reader.token, m.id, { content: 'no' }), 403, 'insufficient_scope');
  });

  it('when edits arrive in parallel, then each keeps the content the one before it replaced', async () => {
    const m = await post(api, alice.token, { content: 'v0' });
    const contents = ['v1', 'v2', 'v3', 'v4', 'v5'];
    const answers = await Promise.all(contents.map((content) => edit(alice.token, m.id, { content })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const history = (await editsOk(alice.token, m.id)).edits.map((e) => e.content);
    const final = (await readOk(api, alice.token, m.id)).content;
    // One chain: the original, then every edit but the last, each exactly once.
    expect(history[0]).toBe('v0');
    expect([...history, final].sort()).toEqual(['v0', ...contents].sort());
  });

  it(`when a message is edited more than ${MAX_KEPT_VERSIONS} times, then only the newest ${MAX_KEPT_VERSIONS} replaced contents are kept`, async () => {
    const m = await post(api, alice.token, { content: 'c0' });
    for (let i = 1; i <= MAX_KEPT_VERSIONS + 2; i++) await editOk(alice.token, m.id, `c${i}`);
    const history = (await editsOk(alice.token, m.id)).edits.map((e) => e.content);
    expect(history).toHaveLength(MAX_KEPT_VERSIONS);
    expect(history[0]).toBe('c2');
    expect(history[MAX_KEPT_VERSIONS - 1]).toBe(`c${MAX_KEPT_VERSIONS + 1}`);
    expect(await versionCount(m.id)).toBe(MAX_KEPT_VERSIONS);
  });
});

describe('GET /v1/messages/{message_id}/edits', () => {
  it('when a CC recipient reads the history, then it is the author’s; a stranger gets the same 404 as a missing message', async () => {
    const m = await post(api, alice.token, { content: 'before', recipients: [bob.tag] });
    await editOk(alice.token, m.id, 'after');
    const asBob = await editsOk(bob.token, m.id);
    expect(asBob).toEqual(await editsOk(alice.token, m.id));
    expect(asBob.edits.map((e) => e.content)).toEqual(['before']);

    const hidden = await edits(carol.token, m.id);
    const missing = await edits(carol.token, MISSING_ID);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
  });

  it('when the message was never edited, then an empty list', async () => {
    const m = await post(api, alice.token, { content: 'untouched' });
    expect(await editsOk(alice.token, m.id)).toEqual({ message_id: m.id, edits: [] });
  });

  it('when the message is deleted, then its history goes with it and both routes answer 404', async () => {
    const m = await post(api, alice.token, { content: 'doomed', recipients: [bob.tag] });
    await editOk(alice.token, m.id, 'still doomed');
    await editOk(alice.token, m.id, 'very doomed');
    expect(await versionCount(m.id)).toBe(2);
    const [before] = await api.ctx.db.runText(
      'MATCH (v:MessageVersion) WHERE v.content IN $contents RETURN count(v) AS n',
      { contents: ['doomed', 'still doomed'] },
    );
    expect(before!.n).toBeGreaterThanOrEqual(2);

    expect((await api.request('DELETE', `/v1/messages/${m.id}`, { token: alice.token })).status).toBe(200);
    // No version is left behind, attached or not.
    const [orphans] = await api.ctx.db.runText(
      'MATCH (v:MessageVersion) WHERE NOT EXISTS { (:Message)-[:PREVIOUS_VERSION]->(v) } RETURN count(v) AS n',
    );
    expect(orphans!.n).toBe(0);
    expect((await edits(bob.token, m.id)).status).toBe(404);
    expect((await edit(alice.token, m.id, { content: 'back?' })).status).toBe(404);
  });
});

describe('what reads the content after an edit', () => {
  it('when a message is edited, then search finds the new words and no longer the old ones', async () => {
    const [old, fresh] = [word(), word()];
    const m = await post(api, alice.token, { content: `lunch ${old}`, recipients: [bob.tag] });
    const search = async (q: string) => {
      const res = await api.request<{ messages: { id: string; content: string }[] }>(
        'GET',
        `/v1/messages/search?q=${q}`,
        { token: bob.token },
      );
      expect(res.status).toBe(200);
      return res.body.messages.map((found) => found.id);
    };
    // Each search waits for the eventually consistent index to catch up with committed writes.
    expect(await search(old)).toEqual([m.id]);
    await editOk(alice.token, m.id, `dinner ${fresh}`);
    expect(await search(fresh)).toEqual([m.id]);
    expect(await search(old)).toEqual([]);
  });

  it('when a message is edited, then the timeline export holds the current content', async () => {
    const m = await post(api, alice.token, { content: 'export me' });
    await editOk(alice.token, m.id, 'exported as edited');
    const res = await api.request<{ messages: Edited[] }>('GET', '/v1/messages/timeline/export?days=1', {
      token: alice.token,
    });
    expect(res.status).toBe(200);
    const exported = res.body.messages.find((found) => found.id === m.id);
    expect({ content: exported?.content, edited: exported?.edited_at !== null }).toEqual({
      content: 'exported as edited',
      edited: true,
    });
  });

  it('when the author edits, then a recipient’s socket and notifications hear message.updated with the change content; a stranger hears nothing', async () => {
    const m = await post(api, alice.token, { content: 'socket before', recipients: [bob.tag] });
    const socket = await openSocket(api, { token: bob.token });
    expect((await socket.next()).type).toBe('ready');
    const strangerSocket = await openSocket(api, { token: carol.token });
    expect((await strangerSocket.next()).type).toBe('ready');

    await editOk(alice.token, m.id, 'socket after');
    expect(await socket.next()).toEqual({
      type: 'notification',
      cursor: expect.any(String),
      event: {
        type: 'message.updated',
        recipient_uid: bob.uid,
        content: {
          messages: [
            {
              id: m.id,
              content: 'socket after',
              parent_id: null,
              author: { uid: alice.uid, user_tag: alice.tag },
            },
          ],
          context: [],
          changes: ['content'],
        },
      },
    });
    strangerSocket.send({ type: 'ping' });
    expect(await strangerSocket.next()).toEqual({ type: 'pong' });
    expect(await contentEvents(bob, m.id)).toHaveLength(1);
    // The actor is never told of their own change.
    expect(await contentEvents(alice, m.id)).toEqual([]);
  });
});

describe('GraphQL editMessageContent and messageEdits', () => {
  it('when GraphQL edits and reads the history, then the answers are those of REST', async () => {
    const m = await post(api, alice.token, { content: 'gql before', recipients: [bob.tag] });
    const edited = await api.graphql<{
      editMessageContent: { id: string; content: string; edited_at: string };
    }>(
      'mutation($id: String!, $c: String!) { editMessageContent(message_id: $id, content: $c) { id content edited_at } }',
      { id: m.id, c: 'gql after' },
      { token: alice.token },
    );
    expect(edited.body.errors).toBeUndefined();
    const rest = (await readOk(api, bob.token, m.id)) as Edited;
    expect(edited.body.data!.editMessageContent).toEqual({
      id: m.id,
      content: 'gql after',
      edited_at: rest.edited_at,
    });

    const history = await api.graphql<{ messageEdits: MessageEdits }>(
      'query($id: String!) { messageEdits(message_id: $id) { message_id edits { content edited_at edited_by { uid user_tag } } } }',
      { id: m.id },
      { token: bob.token },
    );
    expect(history.body.errors).toBeUndefined();
    expect(history.body.data!.messageEdits).toEqual(await editsOk(bob.token, m.id));

    const read = await api.graphql<{ message: { edited_at: string | null } }>(
      'query($id: String!) { message(message_id: $id) { edited_at } }',
      { id: m.id },
      { token: bob.token },
    );
    expect(read.body.data!.message.edited_at).toBe(rest.edited_at);
  });

  it('when GraphQL is refused, then the codes of REST: not_author, message_not_found, validation_error', async () => {
    const m = await post(api, alice.token, { content: 'gql refusals', recipients: [bob.tag] });
    const mutation =
      'mutation($id: String!, $c: String!) { editMessageContent(message_id: $id, content: $c) { id } }';
    const codeOf = async (token: string, variables: Record<string, unknown>, query = mutation) =>
      (await api.graphql(query, variables, { token })).body.errors?.[0]?.extensions?.code;
    expect(await codeOf(bob.token, { id: m.id, c: 'no' })).toBe('not_author');
    expect(await codeOf(carol.token, { id: m.id, c: 'no' })).toBe('message_not_found');
    expect(await codeOf(alice.token, { id: m.id, c: '' })).toBe('validation_error');
    expect(
      await codeOf(
        carol.token,
        { id: m.id },
        'query($id: String!) { messageEdits(message_id: $id) { message_id } }',
      ),
    ).toBe('message_not_found');
    expect((await readOk(api, alice.token, m.id)).content).toBe('gql refusals');
  });
});
