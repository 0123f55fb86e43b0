// Deleting messages: DELETE /v1/messages/{message_id} (with and without delete_descendants) and
// DELETE /v1/messages/batch. Author or manager only, no admin override; re-rooting of the reply
// children that stay; all-or-nothing subtree deletion; edges go with the message.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginAdmin, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  MISSING_ID,
  actAs,
  expectError,
  expectGone,
  managerWithBot,
  post,
  readOk,
  stitch,
  type BatchItemError,
  type Message,
} from './edit-helpers.js';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
});
afterAll(async () => {
  await api.close();
});

function del(token: string | undefined, id: string, query = '') {
  return api.request<{ deleted: string[] }>('DELETE', `/v1/messages/${id}${query}`, { token });
}

function delBatch(token: string | undefined, body: unknown) {
  return api.request<{ deleted: string[]; errors: BatchItemError[] }>('DELETE', '/v1/messages/batch', {
    token,
    body,
  });
}

/**
 * R (alice) → M (alice) → C1 (alice) → G (bob), and M → C2 (bob); everyone in it sees all of it.
 */
async function branchingThread(): Promise<Record<'r' | 'm' | 'c1' | 'g' | 'c2', Message>> {
  const r = await post(api, alice.token, { content: 'root', recipients: [bob.tag] });
  const m = await post(api, alice.token, { content: 'middle', parent_id: r.id, recipients: [bob.tag] });
  const c1 = await post(api, alice.token, { content: 'child 1', parent_id: m.id, recipients: [bob.tag] });
  const g = await post(api, bob.token, { content: 'grandchild', parent_id: c1.id, recipients: [alice.tag] });
  const c2 = await post(api, bob.token, { content: 'child 2', parent_id: m.id, recipients: [alice.tag] });
  return { r, m, c1, g, c2 };
}

describe('DELETE /v1/messages/{message_id}', () => {
  it('when the author deletes a leaf, then 200 {deleted: [id]} and the message is gone for everyone', async () => {
    const m = await post(api, alice.token, { content: 'leaf', recipients: [bob.tag] });
    const res = await del(alice.token, m.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: [m.id] });
    await expectGone(api, alice.token, m.id);
    await expectGone(api, bob.token, m.id);
  });

  it('when a middle message is deleted without descendants, then each child roots its own thread', async () => {
    const { r, m, c1, g, c2 } = await branchingThread();
    const res = await del(alice.token, m.id, '?delete_descendants=false');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: [m.id] });

    await expectGone(api, alice.token, m.id);
    const root = await readOk(api, alice.token, r.id);
    const child1 = await readOk(api, alice.token, c1.id);
    const grandchild = await readOk(api, alice.token, g.id);
    const child2 = await readOk(api, alice.token, c2.id);
    expect({ root: root.root_id, parent: root.parent_id, replies: root.reply_ids }).toEqual({
      root: r.id,
      parent: null,
      replies: [],
    });
    expect({ root: child1.root_id, parent: child1.parent_id, replies: child1.reply_ids }).toEqual({
      root: c1.id,
      parent: null,
      replies: [g.id],
    });
    expect({ root: grandchild.root_id, parent: grandchild.parent_id }).toEqual({
      root: c1.id,
      parent: c1.id,
    });
    expect({ root: child2.root_id, parent: child2.parent_id }).toEqual({ root: c2.id, parent: null });
  });

  it('when the thread root is deleted, then its reply becomes the root of the rest of the thread', async () => {
    const r = await post(api, alice.token, { content: 'root to delete' });
    const a = await post(api, alice.token, { content: 'a', parent_id: r.id });
    const b = await post(api, alice.token, { content: 'b', parent_id: a.id });
    const c = await post(api, alice.token, { content: 'c', parent_id: b.id });
    expect((await del(alice.token, r.id)).status).toBe(200);
    const after = await Promise.all([a, b, c].map((x) => readOk(api, alice.token, x.id)));
    expect(after.map((x) => [x.root_id, x.parent_id])).toEqual([
      [a.id, null],
      [a.id, a.id],
      [a.id, b.id],
    ]);
  });

  it('when the author deletes with descendants, then the whole subtree goes and the rest stays', async () => {
    const r = await post(api, alice.token, { content: 'root' });
    const m = await post(api, alice.token, { content: 'm', parent_id: r.id });
    const c = await post(api, alice.token, { content: 'c', parent_id: m.id });
    const d = await post(api, alice.token, { content: 'd', parent_id: c.id });
    const sibling = await post(api, alice.token, { content: 'sibling', parent_id: r.id });
    const res = await del(alice.token, m.id, '?delete_descendants=true');
    expect(res.status).toBe(200);
    expect([...res.body.deleted].sort()).toEqual([m.id, c.id, d.id].sort());
    expect(res.body.deleted[0]).toBe(m.id);
    for (const id of [m.id, c.id, d.id]) await expectGone(api, alice.token, id);
    const root = await readOk(api, alice.token, r.id);
    expect(root.reply_ids).toEqual([sibling.id]);
    expect((await readOk(api, alice.token, sibling.id)).root_id).toBe(r.id);
  });

  it('when a descendant was written by someone else, then 403 not_author and nothing is deleted', async () => {
    const { r, m, c1, g, c2 } = await branchingThread();
    const res = await del(alice.token, m.id, '?delete_descendants=true');
    expectError(res, 403, 'not_author');
    for (const x of [r, m, c1, g, c2]) {
      const now = await readOk(api, alice.token, x.id);
      expect({ root: now.root_id, parent: now.parent_id }).toEqual({ root: x.root_id, parent: x.parent_id });
    }
  });

  it('when a descendant is one the author cannot see, then 403 and nothing is deleted', async () => {
    // Bob replies to alice's message without listing her: alice cannot see the reply.
    const m = await post(api, alice.token, { content: 'visible to bob', recipients: [bob.tag] });
    const hidden = await post(api, bob.token, { content: 'bob only', parent_id: m.id });
    expectError(await del(alice.token, m.id, '?delete_descendants=true'), 403, 'not_author');
    await readOk(api, alice.token, m.id);
    await readOk(api, bob.token, hidden.id);
  });

  it('when someone who can see it but did not write it deletes it, then 403 not_author', async () => {
    const m = await post(api, alice.token, { content: 'cc to bob', recipients: [bob.tag] });
    expectError(await del(bob.token, m.id), 403, 'not_author');
    await readOk(api, alice.token, m.id);
  });

  it('when an admin deletes someone else’s message, then 403 (no admin override)', async () => {
    const admin = await loginAdmin(api);
    const m = await post(api, alice.token, { content: 'public', public: true });
    expectError(await del(admin, m.id), 403, 'not_author');
    const hidden = await post(api, alice.token, { content: 'private' });
    expectError(await del(admin, hidden.id), 404, 'message_not_found');
    await readOk(api, alice.token, m.id);
    await readOk(api, alice.token, hidden.id);
  });

  it('when the message is invisible to the caller, then the same 404 body as a missing one', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    const invisible = await del(bob.token, m.id);
    const missing = await del(bob.token, MISSING_ID);
    expectError(invisible, 404, 'message_not_found');
    expect(invisible.body).toEqual(missing.body);
    await readOk(api, alice.token, m.id);
  });

  it('when the caller lacks messages.write, then 403 insufficient_scope', async () => {
    const reader = await registerUser(api);
    const m = await post(api, alice.token, { content: 'public', public: true });
    expectError(await del(reader.token, m.id), 403, 'insufficient_scope');
  });

  it('when no credentials are sent, then 401', async () => {
    const m = await post(api, alice.token, { content: 'x' });
    expectError(await del(undefined, m.id), 401, 'not_authenticated');
  });

  it('when the id or delete_descendants is malformed, then 422 validation_error', async () => {
    expectError(await del(alice.token, 'not-an-id'), 422, 'validation_error');
    const m = await post(api, alice.token, { content: 'x' });
    expectError(await del(alice.token, m.id, '?delete_descendants=maybe'), 422, 'validation_error');
    await readOk(api, alice.token, m.id);
  });

  it('when a message with stitches, recipients and bookmarks is deleted, then those edges go with it', async () => {
    const target = await post(api, alice.token, { content: 'stitch target', recipients: [bob.tag] });
    const m = await post(api, alice.token, { content: 'stitched', recipients: [bob.tag] });
    await stitch(api, alice.token, m.id, target.id);
    expect((await readOk(api, bob.token, target.id)).stitch_parent_ids).toEqual([m.id]);
    expect((await api.request('PUT', `/v1/messages/${m.id}/bookmark`, { token: bob.token })).status).toBe(
      200,
    );

    expect((await del(alice.token, m.id)).status).toBe(200);
    expect((await readOk(api, bob.token, target.id)).stitch_parent_ids).toEqual([]);
    const saved = await api.request<{ messages: Message[] }>('GET', '/v1/messages/bookmarks', {
      token: bob.token,
    });
    expect(saved.body.messages.map((x) => x.id)).not.toContain(m.id);
    await expectGone(api, bob.token, m.id);
  });
});

describe('DELETE /v1/messages/{message_id} by managers', () => {
  it('when a manager deletes its bot’s message with its own token, then 200', async () => {
    const { manager, botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot says', recipients: [manager.tag] });
    const res = await del(manager.token, m.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: [m.id] });
    await expectGone(api, botToken, m.id);
  });

  it('when a manager deletes through a delegated session, then 200', async () => {
    const { botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot only' });
    expect((await del(botToken, m.id)).status).toBe(200);
    await expectGone(api, botToken, m.id);
  });

  it('when a manager deletes through act-as, then 200', async () => {
    const { manager, bot, botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot only' });
    const acting = await actAs(api, manager.token, bot.uid);
    expect((await del(acting, m.id)).status).toBe(200);
    await expectGone(api, botToken, m.id);
  });

  it('when a manager deletes a subtree holding its bot’s replies, then all of it goes', async () => {
    const { manager, botToken } = await managerWithBot(api);
    const m = await post(api, manager.token, {
      content: 'to the bot',
      recipients: [(await whoIs(botToken)).tag],
    });
    const reply = await post(api, botToken, {
      content: 'bot reply',
      parent_id: m.id,
      recipients: [manager.tag],
    });
    const res = await del(manager.token, m.id, '?delete_descendants=true');
    expect(res.status).toBe(200);
    expect([...res.body.deleted].sort()).toEqual([m.id, reply.id].sort());
  });

  it('when someone manages a different bot, then 403 not_author on this bot’s message', async () => {
    const { manager } = await managerWithBot(api);
    const other = await managerWithBot(api);
    const m = await post(api, other.botToken, { content: 'public bot message', public: true });
    expectError(await del(manager.token, m.id), 403, 'not_author');
  });

  it('when a bot deletes its manager’s message, then 403 not_author (managing goes one way)', async () => {
    const { manager, bot, botToken } = await managerWithBot(api);
    const m = await post(api, manager.token, { content: 'to my bot', recipients: [bot.user_tag] });
    expectError(await del(botToken, m.id), 403, 'not_author');
  });
});

async function whoIs(token: string): Promise<{ uid: string; tag: string }> {
  const me = await api.request<{ uid: string; user_tag: string }>('GET', '/v1/users/me', { token });
  return { uid: me.body.uid, tag: me.body.user_tag };
}

describe('DELETE /v1/messages/batch', () => {
  it('when some ids cannot be deleted, then the others are deleted and each failure is itemised', async () => {
    const mine1 = await post(api, alice.token, { content: 'mine 1' });
    const mine2 = await post(api, alice.token, { content: 'mine 2' });
    const bobs = await post(api, bob.token, { content: 'bob cc alice', recipients: [alice.tag] });
    const hidden = await post(api, bob.token, { content: 'bob private' });
    const res = await delBatch(alice.token, {
      message_ids: [mine1.id, bobs.id, hidden.id, MISSING_ID, mine2.id, mine1.id],
    });
    expect(res.status).toBe(200);
    expect(res.body.deleted).toEqual([mine1.id, mine2.id]);
    expect(res.body.errors).toEqual([
      { message_id: bobs.id, status: 403, code: 'not_author', detail: expect.any(String) },
      { message_id: hidden.id, status: 404, code: 'message_not_found', detail: 'Message not found.' },
      { message_id: MISSING_ID, status: 404, code: 'message_not_found', detail: 'Message not found.' },
    ]);
    await expectGone(api, alice.token, mine1.id);
    await expectGone(api, alice.token, mine2.id);
    await readOk(api, bob.token, bobs.id);
    await readOk(api, bob.token, hidden.id);
  });

  it('when descendants are asked for, then a blocked subtree fails alone and the others go whole', async () => {
    const { m, c1, g, c2 } = await branchingThread();
    const own = await post(api, alice.token, { content: 'own root' });
    const ownChild = await post(api, alice.token, { content: 'own child', parent_id: own.id });
    const res = await delBatch(alice.token, { message_ids: [m.id, own.id], delete_descendants: true });
    expect(res.status).toBe(200);
    expect([...res.body.deleted].sort()).toEqual([own.id, ownChild.id].sort());
    expect(res.body.errors).toEqual([
      { message_id: m.id, status: 403, code: 'not_author', detail: expect.any(String) },
    ]);
    for (const x of [m, c1, g, c2]) await readOk(api, alice.token, x.id);
  });

  it('when a parent and its child are deleted together without descendants, then the grandchild roots itself', async () => {
    const r = await post(api, alice.token, { content: 'r' });
    const a = await post(api, alice.token, { content: 'a', parent_id: r.id });
    const b = await post(api, alice.token, { content: 'b', parent_id: a.id });
    const c = await post(api, alice.token, { content: 'c', parent_id: b.id });
    const res = await delBatch(alice.token, { message_ids: [r.id, b.id] });
    expect(res.body).toEqual({ deleted: [r.id, b.id], errors: [] });
    const [after_a, after_c] = await Promise.all([
      readOk(api, alice.token, a.id),
      readOk(api, alice.token, c.id),
    ]);
    expect([after_a.root_id, after_a.parent_id, after_a.reply_ids]).toEqual([a.id, null, []]);
    expect([after_c.root_id, after_c.parent_id]).toEqual([c.id, null]);
  });

  it('when the body is malformed, then 422 and nothing is deleted', async () => {
    const m = await post(api, alice.token, { content: 'keep' });
    expectError(await delBatch(alice.token, { message_ids: [] }), 422, 'validation_error');
    expectError(await delBatch(alice.token, { message_ids: [m.id, 'nope'] }), 422, 'validation_error');
    expectError(await delBatch(alice.token, {}), 422, 'validation_error');
    await readOk(api, alice.token, m.id);
  });

  it('when the caller lacks messages.write or credentials, then 403 or 401', async () => {
    const reader = await registerUser(api);
    const m = await post(api, alice.token, { content: 'keep', public: true });
    expectError(await delBatch(reader.token, { message_ids: [m.id] }), 403, 'insufficient_scope');
    expectError(await delBatch(undefined, { message_ids: [m.id] }), 401, 'not_authenticated');
    await readOk(api, alice.token, m.id);
  });

  it('when an admin batch-deletes others’ messages, then each is a 403 item (no admin override)', async () => {
    const admin = await loginAdmin(api);
    const m = await post(api, alice.token, { content: 'public', public: true });
    const res = await delBatch(admin, { message_ids: [m.id] });
    expect(res.body).toEqual({
      deleted: [],
      errors: [{ message_id: m.id, status: 403, code: 'not_author', detail: expect.any(String) }],
    });
  });
});
