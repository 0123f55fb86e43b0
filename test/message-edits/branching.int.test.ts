// How a message branches: PATCH /v1/messages/{message_id}/reply_order and
// PATCH /v1/messages/{message_id}/default_outgoing. Children are reply children and stitch
// children the caller can see; a deleted or invisible child drops out of the output.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginAdmin, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  MISSING_ID,
  actAs,
  expectError,
  managerWithBot,
  post,
  readOk,
  stitch,
  type Message,
} from './edit-helpers.js';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob, carol] = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
});
afterAll(async () => {
  await api.close();
});

function setOrder(token: string | undefined, id: string, body: unknown) {
  return api.request<Message>('PATCH', `/v1/messages/${id}/reply_order`, { token, body });
}

function setDefault(token: string | undefined, id: string, body: unknown) {
  return api.request<Message>('PATCH', `/v1/messages/${id}/default_outgoing`, { token, body });
}

/** Alice's message (CC bob) with two replies (one by bob) and a stitch child; all visible to both. */
async function family() {
  const m = await post(api, alice.token, { content: 'parent', recipients: [bob.tag] });
  const r1 = await post(api, alice.token, { content: 'reply 1', parent_id: m.id, recipients: [bob.tag] });
  const r2 = await post(api, bob.token, { content: 'reply 2', parent_id: m.id, recipients: [alice.tag] });
  const s = await post(api, alice.token, { content: 'stitched', recipients: [bob.tag] });
  await stitch(api, alice.token, m.id, s.id);
  return { m, r1, r2, s };
}

describe('PATCH /v1/messages/{message_id}/reply_order', () => {
  it('when the author orders reply and stitch children, then 200 with that order, and null clears it', async () => {
    const { m, r1, r2, s } = await family();
    const res = await setOrder(alice.token, m.id, { reply_order: [s.id, r2.id, r1.id] });
    expect(res.status).toBe(200);
    expect(res.body.reply_order).toEqual([s.id, r2.id, r1.id]);
    expect((await readOk(api, bob.token, m.id)).reply_order).toEqual([s.id, r2.id, r1.id]);

    const partial = await setOrder(alice.token, m.id, { reply_order: [r2.id] });
    expect(partial.body.reply_order).toEqual([r2.id]);
    const cleared = await setOrder(alice.token, m.id, { reply_order: null });
    expect({ status: cleared.status, order: cleared.body.reply_order }).toEqual({ status: 200, order: null });
  });

  it('when an id is not a child, is repeated or is a child the caller cannot see, then 422 invalid_reply_ids', async () => {
    const { m, r1, r2 } = await family();
    const stranger = await post(api, alice.token, { content: 'not a child' });
    // Carol replies to a public message of alice's without listing alice: alice cannot see it.
    const pub = await post(api, alice.token, { content: 'public parent', public: true });
    const hiddenChild = await post(api, carol.token, { content: 'carol only', parent_id: pub.id });
    expectError(
      await setOrder(alice.token, m.id, { reply_order: [r1.id, stranger.id] }),
      422,
      'invalid_reply_ids',
    );
    expectError(
      await setOrder(alice.token, m.id, { reply_order: [r1.id, r2.id, r1.id] }),
      422,
      'invalid_reply_ids',
    );
    expectError(await setOrder(alice.token, m.id, { reply_order: [MISSING_ID] }), 422, 'invalid_reply_ids');
    expectError(
      await setOrder(alice.token, pub.id, { reply_order: [hiddenChild.id] }),
      422,
      'invalid_reply_ids',
    );
    expect((await readOk(api, alice.token, m.id)).reply_order).toBeNull();
  });

  it('when the body is not a list of strings or null, then 400 bad_request', async () => {
    const { m, r1 } = await family();
    expectError(await setOrder(alice.token, m.id, { reply_order: r1.id }), 400, 'bad_request');
    expectError(await setOrder(alice.token, m.id, { reply_order: [1, 2] }), 400, 'bad_request');
    expectError(await setOrder(alice.token, m.id, {}), 400, 'bad_request');
  });

  it('when a recipient or an admin orders someone else’s message, then 403 not_author', async () => {
    const { m, r1 } = await family();
    expectError(await setOrder(bob.token, m.id, { reply_order: [r1.id] }), 403, 'not_author');
    const pub = await post(api, alice.token, { content: 'public', public: true });
    expectError(await setOrder(await loginAdmin(api), pub.id, { reply_order: null }), 403, 'not_author');
  });

  it('when the message is invisible, then 404; without messages.write 403; without credentials 401', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    expectError(await setOrder(carol.token, m.id, { reply_order: null }), 404, 'message_not_found');
    const reader = await registerUser(api);
    const pub = await post(api, alice.token, { content: 'public', public: true });
    expectError(await setOrder(reader.token, pub.id, { reply_order: null }), 403, 'insufficient_scope');
    expectError(await setOrder(undefined, pub.id, { reply_order: null }), 401, 'not_authenticated');
  });

  it('when a manager orders its bot’s message (own token or act-as), then 200', async () => {
    const { manager, bot, botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot parent', recipients: [manager.tag] });
    const r1 = await post(api, botToken, { content: 'r1', parent_id: m.id, recipients: [manager.tag] });
    const r2 = await post(api, botToken, { content: 'r2', parent_id: m.id, recipients: [manager.tag] });
    const own = await setOrder(manager.token, m.id, { reply_order: [r2.id, r1.id] });
    expect({ status: own.status, order: own.body.reply_order }).toEqual({
      status: 200,
      order: [r2.id, r1.id],
    });
    const acting = await actAs(api, manager.token, bot.uid);
    const viaActAs = await setOrder(acting, m.id, { reply_order: [r1.id] });
    expect({ status: viaActAs.status, order: viaActAs.body.reply_order }).toEqual({
      status: 200,
      order: [r1.id],
    });
  });

  it('when an ordered child is deleted, then it drops out of reply_order', async () => {
    const { m, r1, r2, s } = await family();
    await setOrder(alice.token, m.id, { reply_order: [r1.id, s.id, r2.id] });
    expect((await api.request('DELETE', `/v1/messages/${r1.id}`, { token: alice.token })).status).toBe(200);
    expect((await readOk(api, alice.token, m.id)).reply_order).toEqual([s.id, r2.id]);
  });

  it('when a viewer cannot see an ordered child, then that child is left out of its reply_order', async () => {
    const m = await post(api, alice.token, { content: 'parent', recipients: [bob.tag] });
    const shared = await post(api, alice.token, {
      content: 'shared',
      parent_id: m.id,
      recipients: [bob.tag],
    });
    const own = await post(api, alice.token, { content: 'alice only', parent_id: m.id });
    await setOrder(alice.token, m.id, { reply_order: [own.id, shared.id] });
    expect((await readOk(api, alice.token, m.id)).reply_order).toEqual([own.id, shared.id]);
    expect((await readOk(api, bob.token, m.id)).reply_order).toEqual([shared.id]);
  });
});

describe('PATCH /v1/messages/{message_id}/default_outgoing', () => {
  it('when the author picks a reply child or a stitch child, then 200 with it, and null clears it', async () => {
    const { m, r2, s } = await family();
    const reply = await setDefault(alice.token, m.id, { default_outgoing: r2.id });
    expect({ status: reply.status, value: reply.body.default_outgoing }).toEqual({
      status: 200,
      value: r2.id,
    });
    const stitched = await setDefault(alice.token, m.id, { default_outgoing: s.id });
    expect(stitched.body.default_outgoing).toBe(s.id);
    expect((await readOk(api, bob.token, m.id)).default_outgoing).toBe(s.id);
    const cleared = await setDefault(alice.token, m.id, { default_outgoing: null });
    expect({ status: cleared.status, value: cleared.body.default_outgoing }).toEqual({
      status: 200,
      value: null,
    });
  });

  it('when the id is not a child, then 422 invalid_default_outgoing; when it is not a string, then 400', async () => {
    const { m } = await family();
    const other = await post(api, alice.token, { content: 'other' });
    expectError(
      await setDefault(alice.token, m.id, { default_outgoing: other.id }),
      422,
      'invalid_default_outgoing',
    );
    expectError(
      await setDefault(alice.token, m.id, { default_outgoing: m.id }),
      422,
      'invalid_default_outgoing',
    );
    expectError(await setDefault(alice.token, m.id, { default_outgoing: 42 }), 400, 'bad_request');
    expectError(await setDefault(alice.token, m.id, {}), 400, 'bad_request');
    expect((await readOk(api, alice.token, m.id)).default_outgoing).toBeNull();
  });

  it('when someone else, the invisible or the unauthenticated try, then 403, 404 and 401', async () => {
    const { m, r1 } = await family();
    expectError(await setDefault(bob.token, m.id, { default_outgoing: r1.id }), 403, 'not_author');
    expectError(await setDefault(carol.token, m.id, { default_outgoing: r1.id }), 404, 'message_not_found');
    expectError(await setDefault(undefined, m.id, { default_outgoing: r1.id }), 401, 'not_authenticated');
  });

  it('when the default child is deleted, then default_outgoing shows null', async () => {
    const { m, r1, r2 } = await family();
    await setDefault(alice.token, m.id, { default_outgoing: r1.id });
    await setOrder(alice.token, m.id, { reply_order: [r2.id, r1.id] });
    expect((await api.request('DELETE', `/v1/messages/${r1.id}`, { token: alice.token })).status).toBe(200);
    const after = await readOk(api, alice.token, m.id);
    expect({ default_outgoing: after.default_outgoing, reply_order: after.reply_order }).toEqual({
      default_outgoing: null,
      reply_order: [r2.id],
    });
  });

  it('when a manager sets its bot’s default with a delegated session, then 200', async () => {
    const { botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot parent' });
    const r = await post(api, botToken, { content: 'bot reply', parent_id: m.id });
    const res = await setDefault(botToken, m.id, { default_outgoing: r.id });
    expect({ status: res.status, value: res.body.default_outgoing }).toEqual({ status: 200, value: r.id });
  });
});
