// Co-managers by consent (docs/decisions/023, second review finding #3), through the HTTP API and
// GraphQL against the real Neo4j: POST /v1/managed/users/{uid}/managers invites a user, who manages
// the managed user only once it accepts (GET /v1/managed/invitations, POST
// /v1/managed/invitations/{uid}/accept and /decline). Until then it is no manager, and the bot's
// grant and API access do not follow from it, so an administrator's restriction of a manager is not
// undone by inviting someone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  createManaged,
  grant,
  loginAdmin,
  registerUser,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { TEST_ADMIN, startTestServer, type TestServer } from '../support/test-server.js';
import { USER_FIELDS, type Token } from '../support/api-types.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface Bot {
  uid: string;
  user_tag: string;
}

interface Managers {
  managers: { uid: string; user_tag: string; display_name: string | null; since: string }[];
  invitations: {
    uid: string;
    user_tag: string;
    display_name: string | null;
    invited_by: { uid: string; user_tag: string };
    invited_at: string;
  }[];
}

interface Invitations {
  invitations: {
    user: Record<string, unknown> & { uid: string };
    invited_by: { uid: string; user_tag: string };
    invited_at: string;
  }[];
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_MANAGER = { detail: 'You do not manage that user.', code: 'not_manager' };
const NO_INVITATION = {
  detail: 'You have no pending invitation to manage that user.',
  code: 'invitation_not_found',
};

/** A writer with partner access and a bot of its own, with the bot's key (spec, Authentication 7). */
async function managerWithBotKey(): Promise<{ manager: TestUser; bot: Bot; key: string }> {
  const manager = await registerWriter(api, { apiAccess: true });
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expect(delegated.status).toBe(200);
  const { key } = await createKey(api, delegated.body.access_token, { label: 'bot' });
  return { manager, bot, key };
}

const invite = (inviter: { token: string }, bot: Bot, invitee: { uid: string }) =>
  api.request<Managers>('POST', `/v1/managed/users/${bot.uid}/managers`, {
    token: inviter.token,
    body: { uid: invitee.uid },
  });

const accept = (invitee: { token: string }, bot: Bot) =>
  api.request<Managers>('POST', `/v1/managed/invitations/${bot.uid}/accept`, { token: invitee.token });

const decline = (invitee: { token: string }, bot: Bot) =>
  api.request('POST', `/v1/managed/invitations/${bot.uid}/decline`, { token: invitee.token });

const invitationsOf = (token: string) =>
  api.request<Invitations>('GET', '/v1/managed/invitations', { token });

const managersOf = (token: string, bot: Bot) =>
  api.request<Managers>('GET', `/v1/managed/users/${bot.uid}/managers`, { token });

/** A request with the bot's key, and the token exchange the spec gates on API access. */
async function keyAnswers(key: string): Promise<{ me: number; exchange: number; code?: unknown }> {
  const me = await api.request('GET', '/v1/users/me', { apiKey: key });
  const exchange = await api.request('POST', '/v1/auth/token', { apiKey: key, body: {} });
  return me.status === 200
    ? { me: 200, exchange: exchange.status }
    : { me: me.status, exchange: exchange.status, code: me.body.code };
}

const postWithKey = (apiKey: string) =>
  api.request('POST', '/v1/messages', { apiKey, body: { content: 'from the bot key' } });

describe('a co-manager lends a bot nothing until it accepts (security finding #3)', () => {
  it('when the admin revokes a manager’s API access and the manager invites an account that has it, then the bot’s key stays refused until that account accepts, and works after', async () => {
    const { manager, bot, key } = await managerWithBotKey();
    expect(await keyAnswers(key)).toEqual({ me: 200, exchange: 200 });
    await grant(api, manager.uid, { has_api_access: false });
    const refused = { me: 403, exchange: 403, code: 'api_access_required' };
    expect(await keyAnswers(key)).toEqual(refused);

    const colleague = await registerWriter(api, { apiAccess: true });
    const invited = await invite(manager, bot, colleague);
    expect(invited.status).toBe(200);
    expect(invited.body).toEqual({
      managers: [expect.objectContaining({ uid: manager.uid })],
      invitations: [
        {
          uid: colleague.uid,
          user_tag: colleague.tag,
          display_name: null,
          invited_by: { uid: manager.uid, user_tag: manager.tag },
          invited_at: expect.stringMatching(TIMESTAMP),
        },
      ],
    });
    expect(await keyAnswers(key)).toEqual(refused);

    const accepted = await accept(colleague, bot);
    expect(accepted.status).toBe(200);
    expect(accepted.body.managers.map((m) => m.uid)).toEqual([manager.uid, colleague.uid]);
    expect(accepted.body.invitations).toEqual([]);
    expect(await keyAnswers(key)).toEqual({ me: 200, exchange: 200 });
  });

  it('when the restricted manager invites the administrator, then the bot’s key stays refused while the invitation is pending', async () => {
    const { manager, bot, key } = await managerWithBotKey();
    await grant(api, manager.uid, { has_api_access: false });
    const admin = await api.request<{ uid: string }>('GET', '/v1/users/me', {
      token: await loginAdmin(api),
    });
    const invited = await api.request<Managers>('POST', `/v1/managed/users/${bot.uid}/managers`, {
      token: manager.token,
      body: { user_tag: TEST_ADMIN.tag },
    });
    expect(invited.status).toBe(200);
    expect(invited.body.managers.map((m) => m.uid)).toEqual([manager.uid]);
    expect(invited.body.invitations.map((i) => i.uid)).toEqual([admin.body.uid]);
    expect(await keyAnswers(key)).toEqual({ me: 403, exchange: 403, code: 'api_access_required' });
    const delegated = await api.request('POST', '/v1/managed/auth/delegate', {
      token: await loginAdmin(api),
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(403);
    expect(delegated.body).toEqual(NOT_MANAGER);
  });

  it('when the manager is stripped of messages.write while a writer’s invitation is pending, then the bot cannot post until the writer accepts', async () => {
    const { manager, bot, key } = await managerWithBotKey();
    const writer = await registerWriter(api);
    expect((await invite(manager, bot, writer)).status).toBe(200);
    await grant(api, manager.uid, { scopes: ['messages.read'] });
    const pending = await postWithKey(key);
    expect(pending.status).toBe(403);
    expect(pending.body).toMatchObject({ code: 'insufficient_scope' });
    expect((await accept(writer, bot)).status).toBe(200);
    expect((await postWithKey(key)).status).toBe(200);
  });

  it('when the co-manager who lent its API access is removed, then the bot’s key is refused again at once', async () => {
    const { manager, bot, key } = await managerWithBotKey();
    await grant(api, manager.uid, { has_api_access: false });
    const colleague = await registerWriter(api, { apiAccess: true });
    await invite(manager, bot, colleague);
    await accept(colleague, bot);
    expect((await keyAnswers(key)).me).toBe(200);
    const removed = await api.request('DELETE', `/v1/managed/users/${bot.uid}/managers/${colleague.uid}`, {
      token: manager.token,
    });
    expect(removed.status).toBe(200);
    expect(await keyAnswers(key)).toEqual({ me: 403, exchange: 403, code: 'api_access_required' });
  });
});

describe('a pending co-manager is no manager', () => {
  it('when a pending invitee delegates, acts as the bot, lists, invites or removes its managers, edits, deactivates or deletes it, or reads its delivery log, then 403 not_manager and nothing changes', async () => {
    const { manager, bot, key } = await managerWithBotKey();
    const invitee = await registerWriter(api, { apiAccess: true });
    const other = await registerWriter(api);
    expect((await invite(manager, bot, invitee)).status).toBe(200);
    const calls: [string, string, unknown?][] = [
      ['POST', '/v1/managed/auth/delegate', { managed_uid: bot.uid }],
      ['POST', `/v1/auth/act-as/${bot.uid}`],
      ['GET', `/v1/managed/users/${bot.uid}/managers`],
      ['POST', `/v1/managed/users/${bot.uid}/managers`, { uid: other.uid }],
      ['DELETE', `/v1/managed/users/${bot.uid}/managers/${manager.uid}`],
      ['PATCH', `/v1/managed/users/${bot.uid}`, { bio: 'mine now' }],
      ['POST', `/v1/managed/users/${bot.uid}/deactivate`],
      ['DELETE', `/v1/managed/users/${bot.uid}`],
      ['GET', `/v1/managed/users/${bot.uid}/deliveries`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.request(method, path, { token: invitee.token, ...(body ? { body } : {}) });
      expect({ method, path, status: res.status, body: res.body }).toEqual({
        method,
        path,
        status: 403,
        body: NOT_MANAGER,
      });
    }
    const theirs = await api.request<{ users: { uid: string }[] }>('GET', '/v1/managed/users', {
      token: invitee.token,
    });
    expect(theirs.body.users.map((u) => u.uid)).not.toContain(bot.uid);

    const list = await managersOf(manager.token, bot);
    expect(list.body.managers.map((m) => m.uid)).toEqual([manager.uid]);
    expect(list.body.invitations.map((i) => i.uid)).toEqual([invitee.uid]);
    const profile = await api.request<{ bio: string | null; deactivated_at: string | null }>(
      'GET',
      '/v1/users/me',
      { apiKey: key },
    );
    expect(profile.body).toMatchObject({ bio: null, deactivated_at: null });
  });

  it('when a pending invitee asks through GraphQL for the managers, the invitations or a delegated token, then the errors carry not_manager', async () => {
    const { manager, bot } = await managerWithBotKey();
    const invitee = await registerWriter(api);
    await invite(manager, bot, invitee);
    const listed = await api.graphql(
      'query($uid: String!) { managedUserManagers(uid: $uid) { uid } }',
      { uid: bot.uid },
      { token: invitee.token },
    );
    expect(listed.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_manager' });
    const pending = await api.graphql(
      'query($uid: String!) { managedUserInvitations(uid: $uid) { uid } }',
      { uid: bot.uid },
      { token: invitee.token },
    );
    expect(pending.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_manager' });
    const delegated = await api.graphql(
      'mutation($uid: String!) { delegate(managed_uid: $uid) { access_token } }',
      { uid: bot.uid },
      { token: invitee.token },
    );
    expect(delegated.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_manager' });
  });
});

describe('GET /v1/managed/invitations, POST /v1/managed/invitations/{uid}/accept and /decline', () => {
  it('when a manager invites a user, then the user’s list holds the managed user, who invited it and when', async () => {
    const { manager, bot } = await managerWithBotKey();
    const invitee = await registerWriter(api);
    expect((await invitationsOf(invitee.token)).body).toEqual({ invitations: [] });
    await invite(manager, bot, invitee);
    const res = await invitationsOf(invitee.token);
    expect(res.status).toBe(200);
    expect(res.body.invitations).toHaveLength(1);
    const [invitation] = res.body.invitations;
    expect(Object.keys(invitation!).sort()).toEqual(['invited_at', 'invited_by', 'user']);
    expect(Object.keys(invitation!.user).sort()).toEqual(USER_FIELDS);
    expect(invitation).toEqual({
      user: expect.objectContaining({ uid: bot.uid, user_tag: bot.user_tag, is_managed: true, is_bot: true }),
      invited_by: { uid: manager.uid, user_tag: manager.tag },
      invited_at: expect.stringMatching(TIMESTAMP),
    });
    // Nobody else sees it.
    expect((await invitationsOf(manager.token)).body).toEqual({ invitations: [] });
  });

  it('when the invitee declines, then the invitation is gone from both lists and accepting afterwards answers 404 invitation_not_found', async () => {
    const { manager, bot } = await managerWithBotKey();
    const invitee = await registerWriter(api);
    await invite(manager, bot, invitee);
    const res = await decline(invitee, bot);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ uid: bot.uid, declined: true });
    expect((await invitationsOf(invitee.token)).body).toEqual({ invitations: [] });
    expect((await managersOf(manager.token, bot)).body.invitations).toEqual([]);
    const late = await accept(invitee, bot);
    expect(late.status).toBe(404);
    expect(late.body).toEqual(NO_INVITATION);
    const again = await decline(invitee, bot);
    expect(again.status).toBe(404);
    expect(again.body).toEqual(NO_INVITATION);
    expect((await managersOf(manager.token, bot)).body.managers.map((m) => m.uid)).toEqual([manager.uid]);
  });

  it('when a manager withdraws a pending invitation with DELETE …/managers/{uid}, then the invitee can no longer accept it', async () => {
    const { manager, bot } = await managerWithBotKey();
    const invitee = await registerWriter(api);
    await invite(manager, bot, invitee);
    const withdrawn = await api.request<Managers>(
      'DELETE',
      `/v1/managed/users/${bot.uid}/managers/${invitee.uid}`,
      { token: manager.token },
    );
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toEqual({
      managers: [expect.objectContaining({ uid: manager.uid })],
      invitations: [],
    });
    expect((await invitationsOf(invitee.token)).body).toEqual({ invitations: [] });
    expect((await accept(invitee, bot)).body).toEqual(NO_INVITATION);
  });

  it('when the inviter stops managing the bot before the invitation is accepted, then the invitation ends', async () => {
    const { manager, bot } = await managerWithBotKey();
    const colleague = await registerWriter(api);
    const invitee = await registerWriter(api);
    await invite(manager, bot, colleague);
    await accept(colleague, bot);
    await invite(manager, bot, invitee);
    const removed = await api.request<Managers>(
      'DELETE',
      `/v1/managed/users/${bot.uid}/managers/${manager.uid}`,
      { token: colleague.token },
    );
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      managers: [expect.objectContaining({ uid: colleague.uid })],
      invitations: [],
    });
    expect((await invitationsOf(invitee.token)).body).toEqual({ invitations: [] });
    const late = await accept(invitee, bot);
    expect(late.status).toBe(404);
    expect(late.body).toEqual(NO_INVITATION);
  });

  it('when the bot is deleted, then its pending invitations end', async () => {
    const { manager, bot } = await managerWithBotKey();
    const invitee = await registerWriter(api);
    await invite(manager, bot, invitee);
    expect(
      (await api.request('DELETE', `/v1/managed/users/${bot.uid}`, { token: manager.token })).status,
    ).toBe(200);
    expect((await invitationsOf(invitee.token)).body).toEqual({ invitations: [] });
    expect((await accept(invitee, bot)).body).toEqual(NO_INVITATION);
  });

  it('when a user is invited twice, or a current manager is invited, then nothing changes and the first invitation is kept', async () => {
    const { manager, bot } = await managerWithBotKey();
    const colleague = await registerWriter(api);
    const invitee = await registerWriter(api);
    await invite(manager, bot, colleague);
    await accept(colleague, bot);
    const first = await invite(manager, bot, invitee);
    const second = await invite(colleague, bot, invitee);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.body.invitations).toEqual([
      expect.objectContaining({ uid: invitee.uid, invited_by: { uid: manager.uid, user_tag: manager.tag } }),
    ]);
    const manager2 = await invite(colleague, bot, manager);
    expect(manager2.status).toBe(200);
    expect(manager2.body).toEqual(first.body);
  });

  it('when the caller has no such invitation, or the invitation is someone else’s, then 404 invitation_not_found and nothing changes', async () => {
    const { manager, bot } = await managerWithBotKey();
    const invitee = await registerWriter(api);
    const stranger = await registerWriter(api);
    await invite(manager, bot, invitee);
    for (const res of [
      await accept(stranger, bot),
      await decline(stranger, bot),
      await accept(manager, bot),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NO_INVITATION);
    }
    const unknown = await api.request('POST', '/v1/managed/invitations/0badc0de/accept', {
      token: invitee.token,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(NO_INVITATION);
    expect((await managersOf(manager.token, bot)).body.invitations.map((i) => i.uid)).toEqual([invitee.uid]);
  });

  it('when the uid is malformed, then 422; without credentials, then 401', async () => {
    const user = await registerWriter(api);
    for (const action of ['accept', 'decline']) {
      const res = await api.request('POST', `/v1/managed/invitations/NOT-HEX/${action}`, {
        token: user.token,
      });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['path', 'uid'] }] });
    }
    for (const [method, path] of [
      ['GET', '/v1/managed/invitations'],
      ['POST', '/v1/managed/invitations/0badc0de/accept'],
      ['POST', '/v1/managed/invitations/0badc0de/decline'],
    ] as const) {
      const res = await api.request(method, path);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'not_authenticated' });
    }
  });

  it('when an invitee without messages.write accepts, then 403 insufficient_scope; it may still decline', async () => {
    const { manager, bot } = await managerWithBotKey();
    const reader = await registerUser(api);
    await invite(manager, bot, reader);
    const res = await accept(reader, bot);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
    expect((await managersOf(manager.token, bot)).body.managers.map((m) => m.uid)).toEqual([manager.uid]);
    expect((await decline(reader, bot)).status).toBe(200);
  });

  it('when a managed user asks for invitations, then 403 not_manager', async () => {
    const { key } = await managerWithBotKey();
    const res = await api.request('GET', '/v1/managed/invitations', { apiKey: key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(NOT_MANAGER);
  });
});

describe('GraphQL', () => {
  it('when invitations are listed, accepted and declined through GraphQL, then each answers as its REST route', async () => {
    const { manager, bot } = await managerWithBotKey();
    const second = await createManaged(api, manager.token);
    const invitee = await registerWriter(api);
    const run = async <T>(token: string, query: string, variables: Record<string, unknown> = {}) => {
      const res = await api.graphql<T>(query, variables, { token });
      expect(res.body.errors).toBeUndefined();
      return res.body.data!;
    };
    const added = await run<{ addManagedUserManager: { uid: string }[] }>(
      manager.token,
      'mutation($uid: String!, $input: ManagerAddInput!) { addManagedUserManager(uid: $uid, input: $input) { uid } }',
      { uid: bot.uid, input: { uid: invitee.uid } },
    );
    expect(added.addManagedUserManager.map((m) => m.uid)).toEqual([manager.uid]);
    await invite(manager, second, invitee);
    const pending = await run<{ managedUserInvitations: { uid: string; invited_by: { uid: string } }[] }>(
      manager.token,
      'query($uid: String!) { managedUserInvitations(uid: $uid) { uid invited_by { uid } } }',
      { uid: bot.uid },
    );
    expect(pending.managedUserInvitations).toEqual([{ uid: invitee.uid, invited_by: { uid: manager.uid } }]);
    const mine = await run<{ managerInvitations: { user: { uid: string }; invited_at: string }[] }>(
      invitee.token,
      '{ managerInvitations { user { uid } invited_at } }',
    );
    expect(mine.managerInvitations.map((i) => i.user.uid)).toEqual([bot.uid, second.uid]);
    const accepted = await run<{ acceptManagerInvitation: { uid: string }[] }>(
      invitee.token,
      'mutation($uid: String!) { acceptManagerInvitation(uid: $uid) { uid } }',
      { uid: bot.uid },
    );
    expect(accepted.acceptManagerInvitation.map((m) => m.uid)).toEqual([manager.uid, invitee.uid]);
    const declined = await run<{ declineManagerInvitation: { uid: string; declined: boolean } }>(
      invitee.token,
      'mutation($uid: String!) { declineManagerInvitation(uid: $uid) { uid declined } }',
      { uid: second.uid },
    );
    expect(declined.declineManagerInvitation).toEqual({ uid: second.uid, declined: true });
    expect(
      (await run<{ managerInvitations: unknown[] }>(invitee.token, '{ managerInvitations { invited_at } }'))
        .managerInvitations,
    ).toEqual([]);
    const late = await api.graphql(
      'mutation($uid: String!) { acceptManagerInvitation(uid: $uid) { uid } }',
      { uid: second.uid },
      { token: invitee.token },
    );
    expect(late.body.errors?.[0]?.extensions).toMatchObject({ code: 'invitation_not_found' });
  });
});
