// A managed user's (a bot's) life after creation, through the HTTP API and GraphQL against the real
// Neo4j: a manager edits it (PATCH /v1/managed/users/{uid}), deactivates and reactivates it, deletes
// it, and lists, adds (invites, who then accept: test/users/co-manager-consent.int.test.ts) and
// removes managers. Only a current manager may; credentials of a deactivated or deleted bot fail with
// 401 at once, and a removed manager's delegated session ends at once.
// docs/decisions/015-bot-lifecycle.md, 023-co-manager-consent.md.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  createManaged,
  postMessage,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import type { Token } from '../support/api-types.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { planNow, readDeliveries, verifyEndpoint } from '../webhooks/webhook-helpers.js';

let api: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  // Private endpoint URLs allowed: the webhook receiver listens on 127.0.0.1.
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await api.close();
});

interface User {
  uid: string;
  user_tag: string;
  display_name: string | null;
  bio: string | null;
  is_bot: boolean;
  deactivated_at: string | null;
  bot: {
    modalities: string[];
    integrations: string[];
    versions: string[];
    context_origin_id: string | null;
  } | null;
}

interface Managers {
  managers: { uid: string; user_tag: string; display_name: string | null; since: string }[];
  invitations: { uid: string; invited_by: { uid: string; user_tag: string }; invited_at: string }[];
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_MANAGER = { detail: 'You do not manage that user.', code: 'not_manager' };

interface Bot {
  uid: string;
  user_tag: string;
}

/** A writer with partner access (so its bots' keys work) and one bot of its own. */
async function managerWithBot(): Promise<{ manager: TestUser; bot: Bot }> {
  const manager = await registerWriter(api, { apiAccess: true });
  const bot = await createManaged(api, manager.token, {
    is_bot: true,
    display_name: 'Echo',
    bot: { modalities: ['text'], integrations: ['webhook'], versions: ['v1'] },
  });
  return { manager, bot };
}

/** A delegated session of the bot, minted by `manager`. */
async function delegate(manager: TestUser, bot: Bot): Promise<string> {
  const res = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

/** The bot's own API key (minted through a delegated session) and a session exchanged for it. */
async function botCredentials(manager: TestUser, bot: Bot): Promise<{ key: string; keySession: string }> {
  const { key } = await createKey(api, await delegate(manager, bot), { label: 'bot key' });
  const exchanged = await api.request<Token>('POST', '/v1/auth/token', { apiKey: key, body: {} });
  expect(exchanged.status).toBe(200);
  return { key, keySession: exchanged.body.access_token };
}

function sessionStatus(token: string): Promise<number> {
  return api.request('GET', '/v1/auth/session', { token }).then((res) => res.status);
}

function keyStatus(key: string): Promise<number> {
  return api.request('GET', '/v1/users/me', { apiKey: key }).then((res) => res.status);
}

function managersOf(token: string, uid: string) {
  return api.request<Managers>('GET', `/v1/managed/users/${uid}/managers`, { token });
}

/** `manager` invites `invitee` to manage the bot, and the invitee accepts (docs/decisions/023). */
async function addAcceptedManager(
  manager: TestUser,
  bot: Bot,
  invitee: { uid: string; tag: string; token: string },
) {
  const invited = await api.request<Managers>('POST', `/v1/managed/users/${bot.uid}/managers`, {
    token: manager.token,
    body: { uid: invitee.uid },
  });
  expect(invited.status).toBe(200);
  const accepted = await api.request<Managers>('POST', `/v1/managed/invitations/${bot.uid}/accept`, {
    token: invitee.token,
  });
  expect(accepted.status).toBe(200);
  return accepted;
}

describe('PATCH /v1/managed/users/{uid}', () => {
  it('when a manager edits the display name, bio and some bot metadata, then 200 UserOutput with those changed and the rest kept', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<User>('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: manager.token,
      body: { display_name: 'Echo 2', bio: 'Says it back.', bot: { versions: ['v1', 'v2'] } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      uid: bot.uid,
      user_tag: bot.user_tag,
      display_name: 'Echo 2',
      bio: 'Says it back.',
      is_bot: true,
      deactivated_at: null,
      bot: {
        modalities: ['text'],
        integrations: ['webhook'],
        versions: ['v1', 'v2'],
        context_origin_id: null,
      },
    });
    const listed = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(listed.body.users.find((u) => u.uid === bot.uid)).toEqual(res.body);
  });

  it('when a manager sets is_bot false, then the bot metadata is no longer shown', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<User>('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: manager.token,
      body: { is_bot: false, display_name: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_bot: false, bot: null, display_name: null });
  });

  it('when someone who does not manage it edits it, then 403 not_manager, the same answer as for an unknown uid, and nothing changes', async () => {
    const { manager, bot } = await managerWithBot();
    const stranger = await registerWriter(api);
    const refused = await api.request('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: stranger.token,
      body: { display_name: 'Taken over' },
    });
    const unknown = await api.request('PATCH', '/v1/managed/users/0badc0de', {
      token: stranger.token,
      body: { display_name: 'Taken over' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(NOT_MANAGER);
    expect(unknown.body).toEqual(refused.body);
    const listed = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(listed.body.users.find((u) => u.uid === bot.uid)?.display_name).toBe('Echo');
  });

  it('when the bot itself (a delegated session) edits itself here, then 403 not_manager', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: await delegate(manager, bot),
      body: { bio: 'I manage myself' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(NOT_MANAGER);
  });

  it.each([
    ['a blank display name', { display_name: '   ' }, 'display_name'],
    ['a display name over 100 characters', { display_name: 'x'.repeat(101) }, 'display_name'],
    ['a bio over 2000 characters', { bio: 'x'.repeat(2001) }, 'bio'],
    ['an unknown field', { user_tag: 'renamed' }, null],
    ['an unknown bot field', { bot: { colour: 'blue' } }, 'bot'],
    ['a bad context_origin_id', { bot: { context_origin_id: 'nope' } }, 'bot'],
    ['is_bot as a string', { is_bot: 'yes' }, 'is_bot'],
  ])('when the body has %s, then 422 as POST /v1/users/profile answers', async (_what, body, field) => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<{ code: string; detail: { loc: string[] }[] }>(
      'PATCH',
      `/v1/managed/users/${bot.uid}`,
      { token: manager.token, body },
    );
    const own = await api.request<{ code: string; detail: { loc: string[] }[] }>(
      'POST',
      '/v1/users/profile',
      {
        token: manager.token,
        body,
      },
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_error');
    if (field) expect(res.body.detail[0]!.loc.slice(0, 2)).toEqual(['body', field]);
    expect(own.status).toBe(422);
    expect(own.body.detail).toEqual(res.body.detail);
  });

  it('when the uid is not 8 lowercase hex characters, then 422', async () => {
    const { manager } = await managerWithBot();
    const res = await api.request('PATCH', '/v1/managed/users/NOT-A-UID', {
      token: manager.token,
      body: { bio: 'x' },
    });
    expect(res.status).toBe(422);
  });

  it('when a manager without messages.write edits it, then 403 insufficient_scope', async () => {
    const { manager, bot } = await managerWithBot();
    const readOnly = await api.request<Token>('POST', '/v1/auth/token', {
      apiKey: (await createKey(api, manager.token)).key,
      body: { requested_permissions: 'messages.read' },
    });
    const res = await api.request('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: readOnly.body.access_token,
      body: { bio: 'x' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });
});

describe('POST /v1/managed/users/{uid}/deactivate and /reactivate', () => {
  it('when a manager deactivates its bot, then its key, its key session and a delegated session fail with 401 at once, and UserOutput shows deactivated_at', async () => {
    const { manager, bot } = await managerWithBot();
    const { key, keySession } = await botCredentials(manager, bot);
    const delegated = await delegate(manager, bot);
    // Each has just been accepted (and its session record may be cached).
    expect(await keyStatus(key)).toBe(200);
    expect(await sessionStatus(keySession)).toBe(200);
    expect(await sessionStatus(delegated)).toBe(200);

    const res = await api.request<User>('POST', `/v1/managed/users/${bot.uid}/deactivate`, {
      token: manager.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(bot.uid);
    expect(res.body.deactivated_at).toMatch(TIMESTAMP);

    expect(await keyStatus(key)).toBe(401);
    expect(await sessionStatus(keySession)).toBe(401);
    expect(await sessionStatus(delegated)).toBe(401);
    const exchange = await api.request('POST', '/v1/auth/token', { apiKey: key, body: {} });
    expect(exchange.status).toBe(401);
    expect(exchange.body).toMatchObject({ code: 'invalid_api_key' });
    const listed = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(listed.body.users.find((u) => u.uid === bot.uid)?.deactivated_at).toBe(res.body.deactivated_at);
  });

  it('when it is deactivated, then nobody can delegate to it or act as it (403 account_disabled), and deactivating again keeps the first time', async () => {
    const { manager, bot } = await managerWithBot();
    const first = await api.request<User>('POST', `/v1/managed/users/${bot.uid}/deactivate`, {
      token: manager.token,
    });
    const delegated = await api.request('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(403);
    expect(delegated.body).toMatchObject({ code: 'account_disabled' });
    const actAs = await api.request('POST', `/v1/auth/act-as/${bot.uid}`, { token: manager.token });
    expect(actAs.status).toBe(403);
    const again = await api.request<User>('POST', `/v1/managed/users/${bot.uid}/deactivate`, {
      token: manager.token,
    });
    expect(again.status).toBe(200);
    expect(again.body.deactivated_at).toBe(first.body.deactivated_at);
  });

  it('when it is reactivated, then its key works again and its manager delegates again, while the sessions it had stay ended', async () => {
    const { manager, bot } = await managerWithBot();
    const { key, keySession } = await botCredentials(manager, bot);
    const delegated = await delegate(manager, bot);
    await api.request('POST', `/v1/managed/users/${bot.uid}/deactivate`, { token: manager.token });
    expect(await keyStatus(key)).toBe(401);

    const res = await api.request<User>('POST', `/v1/managed/users/${bot.uid}/reactivate`, {
      token: manager.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.deactivated_at).toBeNull();
    expect(await keyStatus(key)).toBe(200);
    expect(await sessionStatus(await delegate(manager, bot))).toBe(200);
    expect(await sessionStatus(keySession)).toBe(401);
    expect(await sessionStatus(delegated)).toBe(401);
    // Reactivating an active user changes nothing.
    const again = await api.request<User>('POST', `/v1/managed/users/${bot.uid}/reactivate`, {
      token: manager.token,
    });
    expect(again.status).toBe(200);
    expect(again.body.deactivated_at).toBeNull();
  });

  it('when it is deactivated, then user search and the model list leave it out, and show it again once reactivated', async () => {
    const { manager, bot } = await managerWithBot();
    const search = async () =>
      (
        await api.request<{ users: User[] }>('GET', `/v1/users/search?q=${bot.user_tag}`, {
          token: manager.token,
        })
      ).body.users.map((u) => u.uid);
    const models = async () =>
      (
        await api.request<{ data: { id: string }[] }>('GET', '/v1/models', { token: manager.token })
      ).body.data.map((model) => model.id);
    expect(await search()).toContain(bot.uid);
    expect(await models()).toContain(bot.user_tag);
    await api.request('POST', `/v1/managed/users/${bot.uid}/deactivate`, { token: manager.token });
    expect(await search()).not.toContain(bot.uid);
    expect(await models()).not.toContain(bot.user_tag);
    await api.request('POST', `/v1/managed/users/${bot.uid}/reactivate`, { token: manager.token });
    expect(await search()).toContain(bot.uid);
    expect(await models()).toContain(bot.user_tag);
  });

  it('when it is deactivated, then events for it plan no webhook delivery, and after reactivation they do again', async () => {
    const { manager, bot } = await managerWithBot();
    await verifyEndpoint(api, await delegate(manager, bot), receiver);
    const sender = await registerWriter(api);
    const deliveredFor = async () => {
      await planNow(api);
      const log = await readDeliveries(api, manager.token, bot.uid, '?limit=100');
      expect(log.status).toBe(200);
      return log.body.deliveries.length;
    };
    await postMessage(api, sender.token, { content: 'before', recipients: [`uid:${bot.uid}`] });
    expect(await deliveredFor()).toBe(1);

    await api.request('POST', `/v1/managed/users/${bot.uid}/deactivate`, { token: manager.token });
    await postMessage(api, sender.token, { content: 'while deactivated', recipients: [`uid:${bot.uid}`] });
    expect(await deliveredFor()).toBe(1);
    const [first] = (await readDeliveries(api, manager.token, bot.uid)).body.deliveries;
    // No dispatcher runs in this file, but another file's may have sent it before the deactivation.
    expect(first!.state).not.toBe('pending');

    await api.request('POST', `/v1/managed/users/${bot.uid}/reactivate`, { token: manager.token });
    await postMessage(api, sender.token, { content: 'after', recipients: [`uid:${bot.uid}`] });
    expect(await deliveredFor()).toBe(2);
  });

  it('when someone who does not manage it deactivates or reactivates it, then 403 not_manager and its key still works', async () => {
    const { manager, bot } = await managerWithBot();
    const { key } = await botCredentials(manager, bot);
    const stranger = await registerWriter(api);
    for (const action of ['deactivate', 'reactivate']) {
      const res = await api.request('POST', `/v1/managed/users/${bot.uid}/${action}`, {
        token: stranger.token,
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(NOT_MANAGER);
    }
    expect(await keyStatus(key)).toBe(200);
  });

  it('when nobody is signed in, then 401', async () => {
    const { bot } = await managerWithBot();
    expect((await api.request('POST', `/v1/managed/users/${bot.uid}/deactivate`)).status).toBe(401);
  });
});

describe('DELETE /v1/managed/users/{uid}', () => {
  it('when a manager deletes its bot, then {uid, deleted: true}, and its key and sessions fail with 401 at once', async () => {
    const { manager, bot } = await managerWithBot();
    const { key, keySession } = await botCredentials(manager, bot);
    const delegated = await delegate(manager, bot);
    expect(await sessionStatus(delegated)).toBe(200);

    const res = await api.request('DELETE', `/v1/managed/users/${bot.uid}`, { token: manager.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ uid: bot.uid, deleted: true });
    expect(await keyStatus(key)).toBe(401);
    expect(await sessionStatus(keySession)).toBe(401);
    expect(await sessionStatus(delegated)).toBe(401);
  });

  it('when it is deleted, then its messages stay readable and attributed to its uid and tag, and its manager may still delete them', async () => {
    const { manager, bot } = await managerWithBot();
    const reader = await registerWriter(api);
    const posted = await postMessage(api, await delegate(manager, bot), {
      content: 'hello from the bot',
      recipients: [reader.tag],
    });
    // One its manager can see, so that "author or manager" applies to it.
    const second = await postMessage(api, await delegate(manager, bot), {
      content: 'second',
      recipients: [reader.tag, manager.tag],
    });
    await api.request('DELETE', `/v1/managed/users/${bot.uid}`, { token: manager.token });

    const read = await api.request<{ content: string; author: { uid: string; user_tag: string } }>(
      'GET',
      `/v1/messages/${posted.id}`,
      { token: reader.token },
    );
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      content: 'hello from the bot',
      author: { uid: bot.uid, user_tag: bot.user_tag },
    });
    const byTag = await api.request<User>('GET', `/v1/users/by-tag/${bot.user_tag}`, { token: reader.token });
    expect(byTag.status).toBe(200);
    expect(byTag.body.deactivated_at).toMatch(TIMESTAMP);
    const removed = await api.request('DELETE', `/v1/messages/${second.id}`, { token: manager.token });
    expect(removed.status).toBe(200);
  });

  it('when it is deleted, then it leaves its manager’s list, every managed route answers its uid as unknown, and its tag stays taken', async () => {
    const { manager, bot } = await managerWithBot();
    await api.request('DELETE', `/v1/managed/users/${bot.uid}`, { token: manager.token });

    const listed = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(listed.body.users.map((u) => u.uid)).not.toContain(bot.uid);
    const calls: [string, string, unknown?][] = [
      ['DELETE', `/v1/managed/users/${bot.uid}`],
      ['PATCH', `/v1/managed/users/${bot.uid}`, { bio: 'back' }],
      ['POST', `/v1/managed/users/${bot.uid}/reactivate`],
      ['GET', `/v1/managed/users/${bot.uid}/managers`],
      ['POST', '/v1/managed/auth/delegate', { managed_uid: bot.uid }],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.request(method, path, { token: manager.token, ...(body ? { body } : {}) });
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 403,
        body: NOT_MANAGER,
      });
    }
    const retake = await api.request('POST', '/v1/managed/users', {
      token: manager.token,
      body: { user_tag: bot.user_tag.toUpperCase() },
    });
    expect(retake.status).toBe(409);
    expect(retake.body).toMatchObject({ code: 'user_tag_taken' });
  });

  it('when someone who does not manage it deletes it, then 403 not_manager and it keeps working', async () => {
    const { manager, bot } = await managerWithBot();
    const { key } = await botCredentials(manager, bot);
    const stranger = await registerWriter(api);
    const res = await api.request('DELETE', `/v1/managed/users/${bot.uid}`, { token: stranger.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(NOT_MANAGER);
    expect(await keyStatus(key)).toBe(200);
  });
});

describe('GET, POST /v1/managed/users/{uid}/managers and DELETE /v1/managed/users/{uid}/managers/{manager_uid}', () => {
  it('when the creator lists the managers, then it is the one manager, with the time it became one', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await managersOf(manager.token, bot.uid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      managers: [
        {
          uid: manager.uid,
          user_tag: manager.tag,
          display_name: null,
          since: expect.stringMatching(TIMESTAMP),
        },
      ],
      invitations: [],
    });
  });

  it('when a manager invites a regular user by tag and it accepts, then both are listed and the new manager can delegate', async () => {
    const { manager, bot } = await managerWithBot();
    const colleague = await registerWriter(api);
    const invited = await api.request<Managers>('POST', `/v1/managed/users/${bot.uid}/managers`, {
      token: manager.token,
      body: { user_tag: `@${colleague.tag}` },
    });
    expect(invited.status).toBe(200);
    expect(invited.body.managers.map((m) => m.uid)).toEqual([manager.uid]);
    expect(invited.body.invitations.map((i) => i.uid)).toEqual([colleague.uid]);
    const res = await api.request<Managers>('POST', `/v1/managed/invitations/${bot.uid}/accept`, {
      token: colleague.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.managers.map((m) => m.uid)).toEqual([manager.uid, colleague.uid]);
    expect(res.body.invitations).toEqual([]);
    expect(await sessionStatus(await delegate(colleague, bot))).toBe(200);
    const theirs = await api.request<{ users: User[] }>('GET', '/v1/managed/users', {
      token: colleague.token,
    });
    expect(theirs.body.users.map((u) => u.uid)).toContain(bot.uid);
    // Adding a manager again changes nothing.
    const again = await api.request<Managers>('POST', `/v1/managed/users/${bot.uid}/managers`, {
      token: colleague.token,
      body: { uid: manager.uid },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('when the named user is a managed user, unknown, or named twice or not at all, then 403, 404 and 422', async () => {
    const { manager, bot } = await managerWithBot();
    const other = await createManaged(api, manager.token);
    const colleague = await registerUser(api);
    const add = (body: unknown) =>
      api.request('POST', `/v1/managed/users/${bot.uid}/managers`, { token: manager.token, body });
    const managed = await add({ uid: other.uid });
    expect(managed.status).toBe(403);
    expect(managed.body).toMatchObject({ code: 'managed_user_forbidden' });
    const unknown = await add({ user_tag: uniqueTag('nobody') });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'user_not_found' });
    expect((await add({ uid: colleague.uid, user_tag: colleague.tag })).status).toBe(422);
    expect((await add({})).status).toBe(422);
    expect((await add({ uid: 'NOT-HEX' })).status).toBe(422);
    expect((await managersOf(manager.token, bot.uid)).body.managers.map((m) => m.uid)).toEqual([manager.uid]);
    expect((await managersOf(manager.token, bot.uid)).body.invitations).toEqual([]);
  });

  it('when a manager is removed, then the delegated session it held for the bot fails with 401 at once, and the other manager’s does not', async () => {
    const { manager, bot } = await managerWithBot();
    const colleague = await registerWriter(api);
    await addAcceptedManager(manager, bot, colleague);
    const theirs = await delegate(colleague, bot);
    const mine = await delegate(manager, bot);
    expect(await sessionStatus(theirs)).toBe(200);

    const res = await api.request<Managers>(
      'DELETE',
      `/v1/managed/users/${bot.uid}/managers/${colleague.uid}`,
      {
        token: manager.token,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.managers.map((m) => m.uid)).toEqual([manager.uid]);
    expect(await sessionStatus(theirs)).toBe(401);
    expect(await sessionStatus(mine)).toBe(200);
    const refused = await api.request('POST', '/v1/managed/auth/delegate', {
      token: colleague.token,
      body: { managed_uid: bot.uid },
    });
    expect(refused.status).toBe(403);
  });

  it('when the last manager would be removed, then 409 last_manager and it stays', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request('DELETE', `/v1/managed/users/${bot.uid}/managers/${manager.uid}`, {
      token: manager.token,
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'last_manager' });
    expect((await managersOf(manager.token, bot.uid)).body.managers.map((m) => m.uid)).toEqual([manager.uid]);
  });

  it('when a manager hands the bot over (invites the new manager, which accepts, then removes itself), then only the new one manages it', async () => {
    const { manager, bot } = await managerWithBot();
    const heir = await registerWriter(api);
    await addAcceptedManager(manager, bot, heir);
    const res = await api.request<Managers>(
      'DELETE',
      `/v1/managed/users/${bot.uid}/managers/${manager.uid}`,
      {
        token: manager.token,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.managers.map((m) => m.uid)).toEqual([heir.uid]);
    expect((await managersOf(manager.token, bot.uid)).status).toBe(403);
    expect((await managersOf(heir.token, bot.uid)).body.managers.map((m) => m.uid)).toEqual([heir.uid]);
    const edited = await api.request('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: heir.token,
      body: { bio: 'New owner' },
    });
    expect(edited.status).toBe(200);
  });

  it('when the user to remove does not manage the bot, then 404 manager_not_found', async () => {
    const { manager, bot } = await managerWithBot();
    const other = await registerWriter(api);
    const res = await api.request('DELETE', `/v1/managed/users/${bot.uid}/managers/${other.uid}`, {
      token: manager.token,
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'manager_not_found' });
  });

  it('when someone who does not manage the bot lists, adds or removes managers, then 403 not_manager and nothing changes', async () => {
    const { manager, bot } = await managerWithBot();
    const stranger = await registerWriter(api);
    const calls = [
      api.request('GET', `/v1/managed/users/${bot.uid}/managers`, { token: stranger.token }),
      api.request('POST', `/v1/managed/users/${bot.uid}/managers`, {
        token: stranger.token,
        body: { uid: stranger.uid },
      }),
      api.request('DELETE', `/v1/managed/users/${bot.uid}/managers/${manager.uid}`, {
        token: stranger.token,
      }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(NOT_MANAGER);
    }
    expect((await managersOf(manager.token, bot.uid)).body.managers.map((m) => m.uid)).toEqual([manager.uid]);
  });
});

describe('GraphQL', () => {
  it('when a manager edits, deactivates, reactivates, adds and removes a manager and deletes through GraphQL, then each answers as its REST route', async () => {
    const { manager, bot } = await managerWithBot();
    const colleague = await registerWriter(api);
    const run = async <T>(query: string, variables: Record<string, unknown>) => {
      const res = await api.graphql<T>(query, variables, { token: manager.token });
      expect(res.body.errors).toBeUndefined();
      return res.body.data!;
    };
    const edited = await run<{ updateManagedUser: User }>(
      'mutation($uid: String!, $input: ManagedUserUpdateInput!) { updateManagedUser(uid: $uid, input: $input) { uid bio deactivated_at bot { versions } } }',
      { uid: bot.uid, input: { bio: 'Via GraphQL', bot: { versions: ['v3'] } } },
    );
    expect(edited.updateManagedUser).toEqual({
      uid: bot.uid,
      bio: 'Via GraphQL',
      deactivated_at: null,
      bot: { versions: ['v3'] },
    });
    const off = await run<{ deactivateManagedUser: User }>(
      'mutation($uid: String!) { deactivateManagedUser(uid: $uid) { deactivated_at } }',
      { uid: bot.uid },
    );
    expect(off.deactivateManagedUser.deactivated_at).toMatch(TIMESTAMP);
    const on = await run<{ reactivateManagedUser: User }>(
      'mutation($uid: String!) { reactivateManagedUser(uid: $uid) { deactivated_at } }',
      { uid: bot.uid },
    );
    expect(on.reactivateManagedUser.deactivated_at).toBeNull();
    const added = await run<{ addManagedUserManager: { uid: string }[] }>(
      'mutation($uid: String!, $input: ManagerAddInput!) { addManagedUserManager(uid: $uid, input: $input) { uid } }',
      { uid: bot.uid, input: { user_tag: colleague.tag } },
    );
    // Invited, not yet a manager: it manages the bot once it accepts (docs/decisions/023).
    expect(added.addManagedUserManager.map((m) => m.uid)).toEqual([manager.uid]);
    const accepted = await api.graphql<{ acceptManagerInvitation: { uid: string }[] }>(
      'mutation($uid: String!) { acceptManagerInvitation(uid: $uid) { uid } }',
      { uid: bot.uid },
      { token: colleague.token },
    );
    expect(accepted.body.errors).toBeUndefined();
    expect(accepted.body.data!.acceptManagerInvitation.map((m) => m.uid)).toEqual([
      manager.uid,
      colleague.uid,
    ]);
    const listed = await run<{ managedUserManagers: { uid: string; since: string }[] }>(
      'query($uid: String!) { managedUserManagers(uid: $uid) { uid since } }',
      { uid: bot.uid },
    );
    expect(listed.managedUserManagers).toHaveLength(2);
    const removed = await run<{ removeManagedUserManager: { uid: string }[] }>(
      'mutation($uid: String!, $m: String!) { removeManagedUserManager(uid: $uid, manager_uid: $m) { uid } }',
      { uid: bot.uid, m: colleague.uid },
    );
    expect(removed.removeManagedUserManager.map((m) => m.uid)).toEqual([manager.uid]);
    const deleted = await run<{ deleteManagedUser: { uid: string; deleted: boolean } }>(
      'mutation($uid: String!) { deleteManagedUser(uid: $uid) { uid deleted } }',
      { uid: bot.uid },
    );
    expect(deleted.deleteManagedUser).toEqual({ uid: bot.uid, deleted: true });
  });

  it('when a non-manager calls a lifecycle mutation, then the error carries not_manager', async () => {
    const { bot } = await managerWithBot();
    const stranger = await registerWriter(api);
    const res = await api.graphql(
      'mutation($uid: String!) { deactivateManagedUser(uid: $uid) { uid } }',
      { uid: bot.uid },
      { token: stranger.token },
    );
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_manager' });
  });
});
