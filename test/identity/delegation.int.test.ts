// Managers acting for the users they manage: POST /v1/auth/act-as/{subject_uid} and its return
// (the browser flow, with the svc_mgr_session backup cookie), POST /v1/managed/auth/delegate (the
// script flow), and minting a bot's first API key end to end (spec, Authentication §7).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  createManaged,
  grant,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';
import type { Token } from '../support/api-types.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface Session {
  uid: string;
  permissions: string[];
  acting_as: { manager_uid: string } | null;
}

interface Me {
  uid: string;
  user_tag: string;
  is_managed: boolean;
  is_bot: boolean;
  scopes: string[];
}

const TOKEN_SHAPE = {
  access_token: expect.stringMatching(/^svc_session_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/),
  token_type: 'Bearer',
  expires_in: expect.any(Number),
  expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
};

/** A writer (who may create managed users) with one bot of its own. */
async function managerWithBot(): Promise<{ manager: TestUser; bot: { uid: string; user_tag: string } }> {
  const manager = await registerWriter(api);
  const bot = await createManaged(api, manager.token, { is_bot: true });
  return { manager, bot };
}

async function me(credentials: { token?: string; apiKey?: string }) {
  return api.request<Me>('GET', '/v1/users/me', credentials);
}

async function session(token: string) {
  return api.request<Session>('GET', '/v1/auth/session', { token });
}

/** A session of `user` narrowed to `permissions`, minted from an API key. */
async function narrowedToken(user: TestUser, permissions: string): Promise<string> {
  const { key } = await createKey(api, user.token);
  const res = await api.request<Token>('POST', '/v1/auth/token', {
    apiKey: key,
    body: { requested_permissions: permissions },
  });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

describe('POST /v1/auth/act-as/{subject_uid}', () => {
  it('when the manager acts as its bot, then 200 TokenResponse whose token acts as the bot', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<Token>('POST', `/v1/auth/act-as/${bot.uid}`, { token: manager.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(TOKEN_SHAPE);
    expect(res.body.access_token).not.toBe(manager.token);

    const asBot = await me({ token: res.body.access_token });
    expect(asBot.status).toBe(200);
    expect(asBot.body).toMatchObject({
      uid: bot.uid,
      user_tag: bot.user_tag,
      is_managed: true,
      is_bot: true,
    });
  });

  it('when acting as, then svc_session holds the delegated token and svc_mgr_session the manager’s (HttpOnly)', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<Token>('POST', `/v1/auth/act-as/${bot.uid}`, { token: manager.token });
    expect(res.status).toBe(200);
    const sessionCookie = res.cookies.svc_session;
    const backupCookie = res.cookies.svc_mgr_session;
    expect(cookieValue(sessionCookie)).toBe(res.body.access_token);
    expect(cookieValue(backupCookie)).toBe(manager.token);
    for (const cookie of [sessionCookie, backupCookie]) {
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
    }
  });

  it('when the delegated session is read, then acting_as names the manager', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<Token>('POST', `/v1/auth/act-as/${bot.uid}`, { token: manager.token });
    const read = await session(res.body.access_token);
    expect(read.status).toBe(200);
    expect(read.body.uid).toBe(bot.uid);
    expect(read.body.acting_as).toEqual({ manager_uid: manager.uid });

    const own = await session(manager.token);
    expect(own.body.uid).toBe(manager.uid);
    expect(own.body.acting_as).toBeNull();
  });

  it('when the manager acts through the svc_session cookie alone, then it works and the cookie is backed up', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<Token>('POST', `/v1/auth/act-as/${bot.uid}`, {
      cookie: `svc_session=${manager.token}`,
    });
    expect(res.status).toBe(200);
    expect(cookieValue(res.cookies.svc_mgr_session)).toBe(manager.token);
    expect((await me({ token: res.body.access_token })).body.uid).toBe(bot.uid);
  });

  it('when the subject is another manager’s bot, then 403 not_manager', async () => {
    const { bot } = await managerWithBot();
    const stranger = await registerWriter(api);
    const res = await api.request('POST', `/v1/auth/act-as/${bot.uid}`, { token: stranger.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_manager' });
    expect(res.cookies.svc_session).toBeUndefined();
    expect(res.cookies.svc_mgr_session).toBeUndefined();
  });

  it('when the subject is the caller itself, then 403 not_manager', async () => {
    const manager = await registerWriter(api);
    const res = await api.request('POST', `/v1/auth/act-as/${manager.uid}`, { token: manager.token });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'not_manager' });
  });

  it('when the subject is a regular user or no one at all, then 403 not_manager', async () => {
    const manager = await registerWriter(api);
    const other = await registerUser(api);
    for (const uid of [other.uid, randomBytes(4).toString('hex')]) {
      const res = await api.request('POST', `/v1/auth/act-as/${uid}`, { token: manager.token });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'not_manager' });
    }
  });

  it('when the managed user tries to act as its manager, then 403 not_manager', async () => {
    const { manager, bot } = await managerWithBot();
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    const res = await api.request('POST', `/v1/auth/act-as/${manager.uid}`, {
      token: delegated.body.access_token,
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'not_manager' });
  });

  it('when the subject uid is malformed, then 422 in the validation shape', async () => {
    const manager = await registerWriter(api);
    for (const uid of ['XYZ', 'ABCDEF12', '0123456789']) {
      const res = await api.request('POST', `/v1/auth/act-as/${uid}`, { token: manager.token });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        code: 'validation_error',
        detail: [{ loc: ['path', 'subject_uid'], msg: expect.any(String), type: expect.any(String) }],
      });
    }
  });

  it('when there are no credentials, then 401', async () => {
    const { bot } = await managerWithBot();
    const res = await api.request('POST', `/v1/auth/act-as/${bot.uid}`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'not_authenticated' });
  });

  it('when the manager’s session is narrowed, then the act-as session is no broader', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const narrow = await narrowedToken(manager, 'messages.read');
    const res = await api.request<Token>('POST', `/v1/auth/act-as/${bot.uid}`, { token: narrow });
    expect(res.status).toBe(200);
    expect((await session(res.body.access_token)).body.permissions).toEqual(['messages.read']);
  });
});

describe('POST /v1/auth/act-as/return', () => {
  async function actAs() {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<Token>('POST', `/v1/auth/act-as/${bot.uid}`, { token: manager.token });
    expect(res.status).toBe(200);
    return { manager, bot, delegated: res.body.access_token };
  }

  it('when the backup cookie is sent, then 200 with the manager’s own token, svc_session restored and svc_mgr_session cleared', async () => {
    const { manager, delegated } = await actAs();
    const res = await api.request<Token>('POST', '/v1/auth/act-as/return', {
      cookie: `svc_session=${delegated}; svc_mgr_session=${manager.token}`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(TOKEN_SHAPE);
    expect(res.body.access_token).toBe(manager.token);
    expect(res.body.expires_in).toBeGreaterThan(0);

    expect(cookieValue(res.cookies.svc_session)).toBe(manager.token);
    expect(res.cookies.svc_session).toMatch(/HttpOnly/);
    const cleared = res.cookies.svc_mgr_session;
    expect(cleared).toBeDefined();
    expect(cookieValue(cleared)).toBe('');
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);

    const back = await me({ token: res.body.access_token });
    expect(back.status).toBe(200);
    expect(back.body.uid).toBe(manager.uid);
  });

  it('when the manager has returned, then the delegated token answers 401', async () => {
    const { manager, bot, delegated } = await actAs();
    expect((await me({ token: delegated })).body.uid).toBe(bot.uid);
    const res = await api.request('POST', '/v1/auth/act-as/return', {
      cookie: `svc_session=${delegated}; svc_mgr_session=${manager.token}`,
    });
    expect(res.status).toBe(200);
    const after = await me({ token: delegated });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'invalid_session' });
    expect((await me({ token: manager.token })).status).toBe(200);
  });

  it('when there is no backup cookie, then 401 invalid_session and the delegated session lives on', async () => {
    const { bot, delegated } = await actAs();
    const res = await api.request('POST', '/v1/auth/act-as/return', { cookie: `svc_session=${delegated}` });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_session' });
    expect((await me({ token: delegated })).body.uid).toBe(bot.uid);
  });

  it('when nothing at all is sent, then 401 invalid_session', async () => {
    const res = await api.request('POST', '/v1/auth/act-as/return');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_session' });
  });

  it('when the backup cookie holds no valid session, then 401 invalid_session', async () => {
    const { delegated } = await actAs();
    const forged = `svc_session_${'0'.repeat(16)}.${'A'.repeat(43)}`;
    const res = await api.request('POST', '/v1/auth/act-as/return', {
      cookie: `svc_session=${delegated}; svc_mgr_session=${forged}`,
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_session' });
  });
});

// Security review 2026-11-23 #14: logging out while acting as a managed user cleared the
// svc_mgr_session cookie but left the manager's session valid for its whole lifetime.
describe('POST /v1/auth/logout while acting as a managed user', () => {
  async function actingAs() {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<Token>('POST', `/v1/auth/act-as/${bot.uid}`, { token: manager.token });
    expect(res.status).toBe(200);
    return { manager, bot, delegated: res.body.access_token };
  }

  it('when the browser logs out, then the delegated session and the manager session kept in svc_mgr_session both end', async () => {
    const { manager, delegated } = await actingAs();
    const res = await api.request('POST', '/v1/auth/logout', {
      cookie: `svc_session=${delegated}; svc_mgr_session=${manager.token}`,
    });
    expect(res.status).toBe(200);
    expect(cookieValue(res.cookies.svc_mgr_session)).toBe('');
    expect((await me({ token: delegated })).status).toBe(401);
    const managerAfter = await me({ token: manager.token });
    expect(managerAfter.status).toBe(401);
    expect(managerAfter.body).toMatchObject({ code: 'invalid_session' });
  });

  it('when the browser logs out through GraphQL, then the manager session ends too', async () => {
    const { manager, delegated } = await actingAs();
    const res = await api.graphql<{ logout: boolean }>(
      'mutation { logout }',
      {},
      {
        cookie: `svc_session=${delegated}; svc_mgr_session=${manager.token}`,
      },
    );
    expect(res.body.data?.logout).toBe(true);
    expect((await me({ token: delegated })).status).toBe(401);
    expect((await me({ token: manager.token })).status).toBe(401);
  });

  it('when the backup cookie holds a forged token for the manager’s session id, then that session lives on', async () => {
    const { manager, delegated } = await actingAs();
    const id = manager.token.slice('svc_session_'.length, 'svc_session_'.length + 16);
    const forged = `svc_session_${id}.${randomBytes(32).toString('base64url')}`;
    const res = await api.request('POST', '/v1/auth/logout', {
      cookie: `svc_session=${delegated}; svc_mgr_session=${forged}`,
    });
    expect(res.status).toBe(200);
    expect((await me({ token: manager.token })).status).toBe(200);
  });
});

describe('POST /v1/managed/auth/delegate', () => {
  it('when the manager asks for its bot, then 200 TokenResponse for the bot and no cookie is set', async () => {
    const { manager, bot } = await managerWithBot();
    const res = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(TOKEN_SHAPE);
    expect(res.cookies.svc_session).toBeUndefined();
    expect(res.cookies.svc_mgr_session).toBeUndefined();

    const asBot = await me({ token: res.body.access_token });
    expect(asBot.body).toMatchObject({ uid: bot.uid, is_managed: true });
    const read = await session(res.body.access_token);
    expect(read.body.acting_as).toEqual({ manager_uid: manager.uid });
    // The manager's own session is untouched.
    expect((await me({ token: manager.token })).body.uid).toBe(manager.uid);
  });

  it('when the caller does not manage the user, then 403 not_manager', async () => {
    const { bot } = await managerWithBot();
    const stranger = await registerWriter(api);
    const plain = await registerUser(api);
    for (const [token, uid] of [
      [stranger.token, bot.uid],
      [stranger.token, stranger.uid],
      [stranger.token, plain.uid],
      [plain.token, bot.uid],
    ] as const) {
      const res = await api.request('POST', '/v1/managed/auth/delegate', {
        token,
        body: { managed_uid: uid },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'not_manager' });
    }
  });

  it('when managed_uid is missing or malformed, then 422 in the validation shape', async () => {
    const manager = await registerWriter(api);
    for (const body of [{}, { managed_uid: 'XYZ' }, { managed_uid: 12345678 }, { managed_uid: 'ABCDEF12' }]) {
      const res = await api.request('POST', '/v1/managed/auth/delegate', { token: manager.token, body });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        code: 'validation_error',
        detail: [{ loc: ['body', 'managed_uid'], msg: expect.any(String), type: expect.any(String) }],
      });
    }
  });

  it('when there are no credentials, then 401', async () => {
    const { bot } = await managerWithBot();
    const res = await api.request('POST', '/v1/managed/auth/delegate', { body: { managed_uid: bot.uid } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'not_authenticated' });
  });

  it('when the manager’s session is narrowed to messages.read, then the delegated session holds no more', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    // The bot's own grant is wider: it can write.
    const full = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect((await session(full.body.access_token)).body.permissions).toContain('messages.write');

    const narrow = await narrowedToken(manager, 'messages.read');
    const res = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: narrow,
      body: { managed_uid: bot.uid },
    });
    expect(res.status).toBe(200);
    const read = await session(res.body.access_token);
    expect(read.body.uid).toBe(bot.uid);
    for (const permission of read.body.permissions) expect(['messages.read']).toContain(permission);
    expect((await me({ token: res.body.access_token })).body.scopes).toEqual(['messages.read']);

    // Nor can the narrowed delegated session mint a wider key for the bot.
    const key = await api.request<{ scopes_cap: string | null }>('POST', '/v1/auth/keys/self', {
      token: res.body.access_token,
      body: { scopes_cap: 'messages.read messages.write' },
    });
    expect(key.status).toBe(200);
    expect(key.body.scopes_cap).toBe('messages.read');
  });

  it('when the manager’s key is capped, then the delegated session is capped the same way', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token);
    const { key } = await createKey(api, manager.token, { scopes_cap: 'messages.read realtime.connect' });
    const minted = await api.request<Token>('POST', '/v1/auth/token', { apiKey: key });
    const res = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: minted.body.access_token,
      body: { managed_uid: bot.uid },
    });
    expect(res.status).toBe(200);
    expect([...(await session(res.body.access_token)).body.permissions].sort()).toEqual([
      'messages.read',
      'realtime.connect',
    ]);
  });
});

describe('a bot’s first API key (Authentication §7)', () => {
  it('when a manager with partner access follows steps a–c, then the sk_ key authenticates as the bot', async () => {
    // The manager: registered, granted the writer scopes and has_api_access by the admin.
    const manager = await registerWriter(api, { apiAccess: true });
    const managerKey = await createKey(api, manager.token, { label: 'ops' });
    expect(managerKey.key).toMatch(/^sk_/);

    // (a) The manager's key → a manager bearer token.
    const managerBearer = await api.request<Token>('POST', '/v1/auth/token', { apiKey: managerKey.key });
    expect(managerBearer.status).toBe(200);
    const bearer = managerBearer.body.access_token;

    const botTag = uniqueTag('bot');
    const created = await api.request<{ uid: string; is_managed: boolean; is_bot: boolean }>(
      'POST',
      '/v1/managed/users',
      { token: bearer, body: { user_tag: botTag, is_bot: true } },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ is_managed: true, is_bot: true });
    const botUid = created.body.uid;

    // (b) Delegate with the manager bearer token.
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: bearer,
      body: { managed_uid: botUid },
    });
    expect(delegated.status).toBe(200);

    // (c) A key created with the delegated token belongs to the bot.
    const botKey = await api.request<{ key_id: string; key: string }>('POST', '/v1/auth/keys/self', {
      token: delegated.body.access_token,
      body: { label: 'bot' },
    });
    expect(botKey.status).toBe(200);
    expect(botKey.body.key).toMatch(/^sk_[0-9a-f]{8}_/);

    const asBot = await me({ apiKey: botKey.body.key });
    expect(asBot.status).toBe(200);
    expect(asBot.body).toMatchObject({ uid: botUid, user_tag: botTag, is_managed: true, is_bot: true });

    const managerKeys = await api.request<{ keys: { key_id: string }[] }>('GET', '/v1/auth/keys', {
      token: manager.token,
    });
    expect(managerKeys.body.keys.map((k) => k.key_id)).not.toContain(botKey.body.key_id);
    const botKeys = await api.request<{ keys: { key_id: string }[] }>('GET', '/v1/auth/keys', {
      apiKey: botKey.body.key,
    });
    expect(botKeys.body.keys.map((k) => k.key_id)).toEqual([botKey.body.key_id]);

    // The bot's key is permanent: it can itself be exchanged for sessions of the bot.
    const botSession = await api.request<Token>('POST', '/v1/auth/token', { apiKey: botKey.body.key });
    expect(botSession.status).toBe(200);
    expect(botSession.body).toEqual(TOKEN_SHAPE);
    const read = await session(botSession.body.access_token);
    expect(read.body.uid).toBe(botUid);
    expect(read.body.acting_as).toBeNull();
    expect((await me({ token: botSession.body.access_token })).body.uid).toBe(botUid);
  });
});

describe('a delegated session never outlives what made it, nor holds more (security finding #3)', () => {
  /** A delegated session of the manager's bot, minted with these manager credentials. */
  async function delegate(credentials: { token?: string; apiKey?: string }, botUid: string): Promise<Token> {
    const res = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      ...credentials,
      body: { managed_uid: botUid },
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  const postAs = (token: string) =>
    api.request<{ ok: boolean }[]>('POST', '/v1/messages', { token, body: { content: 'as the bot' } });

  it('when the manager logs out, then the delegated session answers 401 and cannot be refreshed', async () => {
    const { manager, bot } = await managerWithBot();
    const delegated = await delegate({ token: manager.token }, bot.uid);
    expect((await session(delegated.access_token)).status).toBe(200);
    expect((await api.request('POST', '/v1/auth/logout', { token: manager.token })).status).toBe(200);
    expect((await session(delegated.access_token)).status).toBe(401);
    expect(
      (await api.request('POST', '/v1/auth/sessions/refresh', { token: delegated.access_token })).status,
    ).toBe(401);
  });

  it('when the manager changes password, then delegated sessions end, also one minted through an API key', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const key = await createKey(api, manager.token);
    const bySession = await delegate({ token: manager.token }, bot.uid);
    const byKey = await delegate({ apiKey: key.key }, bot.uid);
    const change = await api.request<Token>('POST', '/v1/auth/password/change', {
      token: manager.token,
      body: { current_password: manager.password, new_password: 'another-long-passphrase-81' },
    });
    expect(change.status).toBe(200);
    expect((await session(bySession.access_token)).status).toBe(401);
    expect((await session(byKey.access_token)).status).toBe(401);
    // The manager's new session delegates afresh.
    const fresh = await delegate({ token: change.body.access_token }, bot.uid);
    expect((await session(fresh.access_token)).status).toBe(200);
  });

  it('when the key behind the manager’s credential is revoked, then the delegated session ends at once', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const direct = await createKey(api, manager.token);
    const exchanged = await createKey(api, manager.token);
    const keySession = await api.request<Token>('POST', '/v1/auth/token', { apiKey: exchanged.key });
    expect(keySession.status).toBe(200);
    const throughKey = await delegate({ apiKey: direct.key }, bot.uid);
    const throughKeySession = await delegate({ token: keySession.body.access_token }, bot.uid);
    for (const key of [direct, exchanged]) {
      const res = await api.request('DELETE', `/v1/auth/keys/${key.key_id}`, { token: manager.token });
      expect(res.status).toBe(200);
    }
    expect((await session(throughKey.access_token)).status).toBe(401);
    expect((await session(throughKeySession.access_token)).status).toBe(401);
  });

  it('when the manager loses a scope, then the delegated session loses it at once, and keys it mints are capped at what the manager holds', async () => {
    const { manager, bot } = await managerWithBot();
    const delegated = await delegate({ token: manager.token }, bot.uid);
    expect((await postAs(delegated.access_token)).status).toBe(200);
    await grant(api, manager.uid, { scopes: ['messages.read'] });
    const post = await postAs(delegated.access_token);
    expect(post.status).toBe(403);
    expect((await session(delegated.access_token)).body.permissions).toEqual(['messages.read']);
    const key = await api.request<{ scopes_cap: string | null }>('POST', '/v1/auth/keys/self', {
      token: delegated.access_token,
      body: {},
    });
    expect(key.status).toBe(200);
    expect(key.body.scopes_cap).toBe('messages.read');
  });

  it('when a delegated session is refreshed, then it never expires after the manager’s session', async () => {
    const { manager, bot } = await managerWithBot();
    const managerSession = await session(manager.token);
    const managerExpiry = Date.parse((managerSession.body as unknown as { expires_at: string }).expires_at);
    const delegated = await delegate({ token: manager.token }, bot.uid);
    expect(Date.parse(delegated.expires_at)).toBeLessThanOrEqual(managerExpiry);
    const refreshed = await api.request<Token>('POST', '/v1/auth/sessions/refresh', {
      token: delegated.access_token,
    });
    expect(refreshed.status).toBe(200);
    expect(Date.parse(refreshed.body.expires_at)).toBeLessThanOrEqual(managerExpiry);
  });
});

describe('a bot holds no more than its managers hold now (security finding #4)', () => {
  /** A bot key minted the documented way: a delegated session, then POST /v1/auth/keys/self. */
  async function botKey(manager: TestUser, botUid: string): Promise<string> {
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: botUid },
    });
    expect(delegated.status).toBe(200);
    return (await createKey(api, delegated.body.access_token)).key;
  }

  const postWithKey = (apiKey: string) =>
    api.request('POST', '/v1/messages', { apiKey, body: { content: 'from the bot key' } });

  it('when the manager is stripped of messages.write, then a bot key minted earlier cannot post', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const key = await botKey(manager, bot.uid);
    expect((await postWithKey(key)).status).toBe(200);
    await grant(api, manager.uid, { scopes: ['messages.read'] });
    const refused = await postWithKey(key);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when the manager loses API access, then the bot key minted earlier answers 403 api_access_required', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const key = await botKey(manager, bot.uid);
    expect((await postWithKey(key)).status).toBe(200);
    await grant(api, manager.uid, { has_api_access: false });
    const refused = await postWithKey(key);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'api_access_required' });
  });
});
