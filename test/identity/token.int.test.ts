// POST /v1/auth/token: API key → session.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createKey, grant, registerUser, registerWriter } from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';
import type { Token } from '../support/api-types.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

describe('POST /v1/auth/token', () => {
  it('when the x-api-key header is missing, then 400 missing_api_key', async () => {
    const res = await api.request('POST', '/v1/auth/token', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'missing_api_key' });
  });

  it('when the key is unknown or malformed, then 401 invalid_api_key', async () => {
    for (const key of ['sk_nonsense', `sk_00000000_${'a'.repeat(43)}`]) {
      const res = await api.request('POST', '/v1/auth/token', { apiKey: key });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_api_key' });
    }
  });

  it('when the secret part of a real key is wrong, then 401', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const tampered = key.slice(0, -2) + (key.endsWith('AA') ? 'BB' : 'AA');
    const res = await api.request('POST', '/v1/auth/token', { apiKey: tampered });
    expect(res.status).toBe(401);
  });

  it('when the account lacks has_api_access, then 403 api_access_required', async () => {
    const user = await registerWriter(api, { apiAccess: false });
    const { key } = await createKey(api, user.token);
    const res = await api.request('POST', '/v1/auth/token', { apiKey: key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'api_access_required' });
  });

  it('when the key is valid, then a Bearer session token with the default TTL and an HttpOnly cookie', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const res = await api.request<Token>('POST', '/v1/auth/token', { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toMatch(/^svc_session_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.expires_in).toBe(30 * 24 * 3600);
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    const cookie = res.cookies.svc_session;
    expect(cookieValue(cookie)).toBe(res.body.access_token);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);

    const me = await api.request<{ uid: string }>('GET', '/v1/users/me', { token: res.body.access_token });
    expect(me.body.uid).toBe(user.uid);
  });

  it('when requested_permissions narrows, then the session holds requested ∩ key cap ∩ grant', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token, { scopes_cap: 'messages.read messages.write' });
    const res = await api.request<Token>('POST', '/v1/auth/token', {
      apiKey: key,
      body: {
        requested_permissions: 'messages.write realtime.connect channels.create',
        device_id: 'worker-7',
      },
    });
    expect(res.status).toBe(200);
    const session = await api.request<{ permissions: string[]; device_id: string }>(
      'GET',
      '/v1/auth/session',
      {
        token: res.body.access_token,
      },
    );
    expect(session.body.permissions).toEqual(['messages.write']);
    expect(session.body.device_id).toBe('worker-7');
  });

  it('when the alias requested_scopes is used and aud/cnf/act are sent, then they are accepted', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const res = await api.request<Token>('POST', '/v1/auth/token', {
      apiKey: key,
      body: { requested_scopes: 'messages.read', aud: 'x', cnf: { jkt: 'y' }, act: { sub: 'z' } },
    });
    expect(res.status).toBe(200);
    const session = await api.request<{ permissions: string[] }>('GET', '/v1/auth/session', {
      token: res.body.access_token,
    });
    expect(session.body.permissions).toEqual(['messages.read']);
  });

  it('when an unknown scope is requested, then 422 in the validation shape', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const res = await api.request('POST', '/v1/auth/token', {
      apiKey: key,
      body: { requested_permissions: 'root' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'validation_error',
      detail: [{ loc: ['body', 'requested_permissions'], msg: expect.any(String), type: expect.any(String) }],
    });
  });

  it('when the key is revoked, then both the key and the sessions minted from it fail with 401 at once', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key, key_id } = await createKey(api, user.token);
    const minted = await api.request<Token>('POST', '/v1/auth/token', { apiKey: key });
    expect((await api.request('GET', '/v1/users/me', { token: minted.body.access_token })).status).toBe(200);
    expect((await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token })).status).toBe(200);
    expect((await api.request('POST', '/v1/auth/token', { apiKey: key })).status).toBe(401);
    expect((await api.request('GET', '/v1/users/me', { apiKey: key })).status).toBe(401);
    expect((await api.request('GET', '/v1/users/me', { token: minted.body.access_token })).status).toBe(401);
  });

  it('when the key has expired, then 401', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token, {
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    expect((await api.request('POST', '/v1/auth/token', { apiKey: key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    expect((await api.request('POST', '/v1/auth/token', { apiKey: key })).status).toBe(401);
  });

  it('when partner access is taken away, then the key stops working at once', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    expect((await api.request('GET', '/v1/users/me', { apiKey: key })).status).toBe(200);
    await grant(api, user.uid, { has_api_access: false });
    expect((await api.request('GET', '/v1/users/me', { apiKey: key })).status).toBe(403);
  });

  it('when a plain registered user creates a key, then its cap follows the account grant, not a frozen copy', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ scopes_cap: string | null }>('POST', '/v1/auth/keys/self', {
      token: user.token,
      body: {},
    });
    expect(res.status).toBe(200);
    expect(res.body.scopes_cap).toBeNull();
  });
});
