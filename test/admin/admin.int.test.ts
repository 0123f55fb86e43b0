// Administration: the bootstrap admin from SKEIN_ADMIN_TAG / SKEIN_ADMIN_PASSWORD, and
// PATCH /v1/admin/users/{uid} (scope `admin`) setting a user's scopes and partner access.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  WRITER_SCOPES,
  createKey,
  createManaged,
  grant,
  loginAdmin,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import { TEST_ADMIN, startTestServer, type TestServer } from '../support/test-server.js';
import { USER_FIELDS } from '../support/api-types.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const ALL_SCOPES = ['admin', 'channels.create', 'messages.read', 'messages.write', 'realtime.connect'];

interface Me {
  uid: string;
  user_tag: string;
  is_managed: boolean;
  has_api_access: boolean;
  scopes: string[];
}

interface User {
  uid: string;
  user_tag: string;
  is_managed: boolean;
  has_api_access: boolean;
}

const sorted = (values: readonly string[]) => [...values].sort();

async function patchUser(token: string | undefined, uid: string, body: unknown) {
  return api.request<User>('PATCH', `/v1/admin/users/${uid}`, { token, body });
}

async function scopesOf(user: TestUser): Promise<string[]> {
  const res = await api.request<Me>('GET', '/v1/users/me', { token: user.token });
  expect(res.status).toBe(200);
  return sorted(res.body.scopes);
}

describe('the bootstrap admin', () => {
  it('when the service starts with SKEIN_ADMIN_TAG and SKEIN_ADMIN_PASSWORD, then that user exists with every scope and partner access', async () => {
    const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: TEST_ADMIN.tag, password: TEST_ADMIN.password },
    });
    expect(login.status).toBe(200);
    const me = await api.request<Me>('GET', '/v1/users/me', { token: login.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user_tag: TEST_ADMIN.tag, is_managed: false, has_api_access: true });
    expect(sorted(me.body.scopes)).toEqual(ALL_SCOPES);
  });

  it('when a second server starts with the same admin env, then it starts and the admin is neither duplicated nor changed', async () => {
    const viewer = await registerUser(api);
    const before = await api.request<User>('GET', `/v1/users/by-tag/${TEST_ADMIN.tag}`, {
      token: viewer.token,
    });
    expect(before.status).toBe(200);

    const second = await startTestServer();
    try {
      const login = await second.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
        body: { user_tag: TEST_ADMIN.tag, password: TEST_ADMIN.password },
      });
      expect(login.status).toBe(200);
      const me = await second.request<Me>('GET', '/v1/users/me', { token: login.body.access_token });
      expect(me.body.uid).toBe(before.body.uid);
      expect(sorted(me.body.scopes)).toEqual(ALL_SCOPES);
      expect(me.body.has_api_access).toBe(true);
      // No API shows how many accounts share a tag, so count them in the database itself.
      const rows = await second.ctx.db.read('users/find-user-by-tag', {
        tag_folded: TEST_ADMIN.tag.toLowerCase(),
        viewer_uid: null,
      });
      expect(rows).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('when a second server starts with another admin password for the same tag, then the existing account is left alone', async () => {
    const second = await startTestServer({ SKEIN_ADMIN_PASSWORD: 'another-admin-password-91d2' });
    try {
      const oldPassword = await second.request('POST', '/v1/auth/password/login', {
        body: { user_tag: TEST_ADMIN.tag, password: TEST_ADMIN.password },
      });
      expect(oldPassword.status).toBe(200);
      const newPassword = await second.request('POST', '/v1/auth/password/login', {
        body: { user_tag: TEST_ADMIN.tag, password: 'another-admin-password-91d2' },
      });
      expect(newPassword.status).toBe(401);
    } finally {
      await second.close();
    }
  });
});

describe('PATCH /v1/admin/users/{uid}', () => {
  it('when the admin changes a user, then 200 UserOutput and the change is stored', async () => {
    const user = await registerUser(api);
    const res = await patchUser(await loginAdmin(api), user.uid, {
      scopes: ['messages.read', 'channels.create'],
      has_api_access: true,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(USER_FIELDS);
    expect(res.body).toMatchObject({
      uid: user.uid,
      user_tag: user.tag,
      has_api_access: true,
      is_managed: false,
    });

    const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const me = await api.request<Me>('GET', '/v1/users/me', { token: login.body.access_token });
    expect(sorted(me.body.scopes)).toEqual(['channels.create', 'messages.read']);
    expect(me.body.has_api_access).toBe(true);
  });

  it('when only has_api_access is sent, then the scopes stay as they were', async () => {
    const user = await registerWriter(api);
    const res = await patchUser(await loginAdmin(api), user.uid, { has_api_access: true });
    expect(res.status).toBe(200);
    expect(res.body.has_api_access).toBe(true);
    expect(await scopesOf(user)).toEqual(sorted(WRITER_SCOPES));
  });

  it('when a non-admin asks, then 403 insufficient_scope and the user is unchanged', async () => {
    const caller = await registerWriter(api, { apiAccess: true });
    const target = await registerUser(api);
    for (const uid of [target.uid, caller.uid]) {
      const res = await patchUser(caller.token, uid, { scopes: [...ALL_SCOPES], has_api_access: true });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'insufficient_scope' });
    }
    expect(await scopesOf(target)).toEqual(['messages.read']);
    const me = await api.request<Me>('GET', '/v1/users/me', { token: caller.token });
    expect(sorted(me.body.scopes)).toEqual(sorted(WRITER_SCOPES));
  });

  it('when a managed user acts, then 403 insufficient_scope', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    const res = await patchUser(delegated.body.access_token, bot.uid, { scopes: [...ALL_SCOPES] });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when the admin’s own credential is narrowed without admin, then 403 insufficient_scope', async () => {
    const adminToken = await loginAdmin(api);
    const target = await registerUser(api);
    const { key } = await createKey(api, adminToken, { scopes_cap: 'messages.read messages.write' });
    const viaKey = await api.request('PATCH', `/v1/admin/users/${target.uid}`, {
      apiKey: key,
      body: { has_api_access: true },
    });
    expect(viaKey.status).toBe(403);
    expect(viaKey.body).toMatchObject({ code: 'insufficient_scope' });

    const { key: fullKey } = await createKey(api, adminToken);
    const narrowed = await api.request<{ access_token: string }>('POST', '/v1/auth/token', {
      apiKey: fullKey,
      body: { requested_permissions: 'messages.read' },
    });
    const viaSession = await patchUser(narrowed.body.access_token, target.uid, { has_api_access: true });
    expect(viaSession.status).toBe(403);
    expect(viaSession.body).toMatchObject({ code: 'insufficient_scope' });

    const me = await api.request<Me>('GET', '/v1/users/me', { token: target.token });
    expect(me.body.has_api_access).toBe(false);
  });

  it('when there are no credentials, then 401', async () => {
    const target = await registerUser(api);
    const res = await patchUser(undefined, target.uid, { has_api_access: true });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'not_authenticated' });
  });

  it('when the uid belongs to no one, then 404 user_not_found', async () => {
    // 32 random bits: a clash with an existing uid is out of the question at test scale.
    const uid = randomBytes(4).toString('hex');
    const res = await patchUser(await loginAdmin(api), uid, { has_api_access: true });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'user_not_found' });
  });

  it('when a scope name is unknown, then 422 and the grant is unchanged', async () => {
    const user = await registerWriter(api);
    const res = await patchUser(await loginAdmin(api), user.uid, { scopes: ['messages.read', 'root'] });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'validation_error',
      detail: [{ loc: ['body', 'scopes', 1], msg: expect.any(String), type: expect.any(String) }],
    });
    expect(await scopesOf(user)).toEqual(sorted(WRITER_SCOPES));
  });

  it('when the uid is malformed, then 422 on the path', async () => {
    const admin = await loginAdmin(api);
    for (const uid of ['XYZ', 'ABCDEF12', '0123456789']) {
      const res = await patchUser(admin, uid, { has_api_access: true });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        code: 'validation_error',
        detail: [{ loc: ['path', 'uid'], msg: expect.any(String), type: expect.any(String) }],
      });
    }
  });

  it('when the body is otherwise bad, then 422', async () => {
    const user = await registerUser(api);
    const admin = await loginAdmin(api);
    const cases: [unknown, (string | number)[]][] = [
      [{ scopes: 'admin' }, ['body', 'scopes']],
      [{ has_api_access: 'yes' }, ['body', 'has_api_access']],
      [{ is_managed: true }, ['body']],
    ];
    for (const [body, loc] of cases) {
      const res = await patchUser(admin, user.uid, body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        code: 'validation_error',
        detail: expect.arrayContaining([{ loc, msg: expect.any(String), type: expect.any(String) }]),
      });
    }
    const me = await api.request<Me>('GET', '/v1/users/me', { token: user.token });
    expect(me.body).toMatchObject({ has_api_access: false, is_managed: false });
  });

  it('when a scope is taken away, then the user’s existing session loses it at once', async () => {
    const user = await registerWriter(api);
    expect(await scopesOf(user)).toEqual(sorted(WRITER_SCOPES));
    const created = await createManaged(api, user.token);
    expect(created.uid).toMatch(/^[0-9a-f]{8}$/);

    await grant(api, user.uid, { scopes: ['messages.read', 'realtime.connect'] });
    expect(await scopesOf(user)).toEqual(['messages.read', 'realtime.connect']);
    const refused = await api.request('POST', '/v1/managed/users', {
      token: user.token,
      body: { user_tag: uniqueTag('bot') },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when a scope is taken away, then API keys of the user lose it at once too', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const before = await api.request<Me>('GET', '/v1/users/me', { apiKey: key });
    expect(before.body.scopes).toContain('messages.write');
    await grant(api, user.uid, { scopes: ['messages.read'] });
    const after = await api.request<Me>('GET', '/v1/users/me', { apiKey: key });
    expect(after.body.scopes).toEqual(['messages.read']);
  });

  it('when admin is granted and later taken away, then the user can administer and then at once cannot', async () => {
    const deputy = await registerUser(api);
    const target = await registerUser(api);
    await grant(api, deputy.uid, { scopes: ['messages.read', 'admin'] });
    const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: deputy.tag, password: deputy.password },
    });
    const token = login.body.access_token;
    const ok = await patchUser(token, target.uid, { has_api_access: true });
    expect(ok.status).toBe(200);
    expect(ok.body.has_api_access).toBe(true);

    await grant(api, deputy.uid, { scopes: ['messages.read'] });
    const refused = await patchUser(token, target.uid, { has_api_access: false });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when has_api_access is granted, then the user can exchange a key at /v1/auth/token', async () => {
    const user = await registerWriter(api, { apiAccess: false });
    const { key } = await createKey(api, user.token);
    const before = await api.request('POST', '/v1/auth/token', { apiKey: key });
    expect(before.status).toBe(403);
    expect(before.body).toMatchObject({ code: 'api_access_required' });

    const res = await patchUser(await loginAdmin(api), user.uid, { has_api_access: true });
    expect(res.status).toBe(200);
    expect(res.body.has_api_access).toBe(true);

    const after = await api.request<{ access_token: string }>('POST', '/v1/auth/token', { apiKey: key });
    expect(after.status).toBe(200);
    const me = await api.request<Me>('GET', '/v1/users/me', { token: after.body.access_token });
    expect(me.body.uid).toBe(user.uid);

    await patchUser(await loginAdmin(api), user.uid, { has_api_access: false });
    expect((await api.request('POST', '/v1/auth/token', { apiKey: key })).status).toBe(403);
  });
});
