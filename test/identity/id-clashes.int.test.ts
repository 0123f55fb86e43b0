// Writes that meet a clash on a unique id: a new API key whose id is taken is retried with a fresh
// one, like every other short id; and when signing in fails at the last step of registration or of
// a password change, the transaction leaves nothing half done. The clashes are forced by queueing
// ids that already exist in front of the id generator; the database and everything else are real.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

// The generator is replaced before the app is imported, so the app sees the queue.
const secrets = await import('../../src/platform/auth/secrets.js');
const queued = { shortIds: [] as string[], sessionIds: [] as string[] };
jest.unstable_mockModule('../../src/platform/auth/secrets.js', () => ({
  ...secrets,
  newShortId: () => queued.shortIds.shift() ?? secrets.newShortId(),
  newSessionId: () => queued.sessionIds.shift() ?? secrets.newSessionId(),
}));
const { createKey, registerUser, registerWriter, uniqueTag } = await import('../support/factories.js');
const { startTestServer } = await import('../support/test-server.js');
type TestServer = Awaited<ReturnType<typeof startTestServer>>;

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const sessionIdOf = (token: string) => token.slice('svc_session_'.length, 'svc_session_'.length + 16);

describe('POST /v1/auth/keys/self', () => {
  it('when the new key id is already taken, then it is retried: 200 with another id, and the existing key is untouched', async () => {
    const owner = await registerWriter(api, { apiAccess: true });
    const existing = await createKey(api, owner.token, { label: 'existing' });
    const other = await registerWriter(api, { apiAccess: true });

    queued.shortIds.push(existing.key_id);
    const res = await api.request<{ key_id: string; key: string }>('POST', '/v1/auth/keys/self', {
      token: other.token,
      body: { label: 'fresh' },
    });
    expect(queued.shortIds).toEqual([]);
    expect(res.status).toBe(200);
    expect(res.body.key_id).toMatch(/^[0-9a-f]{8}$/);
    expect(res.body.key_id).not.toBe(existing.key_id);
    expect(res.body.key.startsWith(`sk_${res.body.key_id}_`)).toBe(true);
    expect((await api.request('POST', '/v1/auth/token', { apiKey: res.body.key, body: {} })).status).toBe(
      200,
    );

    const mine = await api.request<{ keys: { key_id: string; label: string }[] }>('GET', '/v1/auth/keys', {
      token: owner.token,
    });
    expect(mine.body.keys).toEqual([expect.objectContaining({ key_id: existing.key_id, label: 'existing' })]);
    expect((await api.request('POST', '/v1/auth/token', { apiKey: existing.key, body: {} })).status).toBe(
      200,
    );
  });
});

describe('POST /v1/auth/register', () => {
  it('when the new session cannot be written, then 500 and no account: the same tag registers afterwards', async () => {
    const someone = await registerUser(api);
    const tag = uniqueTag();
    queued.sessionIds.push(sessionIdOf(someone.token));
    const failed = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: tag, password: someone.password },
    });
    expect(queued.sessionIds).toEqual([]);
    expect(failed.status).toBe(500);
    expect(failed.cookies.svc_session).toBeUndefined();

    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: tag, password: someone.password },
    });
    expect(login.status).toBe(401);
    const retry = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: tag, password: someone.password },
    });
    expect(retry.status).toBe(200);
  });
});

describe('POST /v1/auth/password/change', () => {
  it('when the new session cannot be written, then 500 and nothing changed: old password, old sessions', async () => {
    const user = await registerUser(api);
    const otherSession = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(otherSession.status).toBe(200);
    const newPassword = 'another-strong-passphrase-9';

    queued.sessionIds.push(sessionIdOf(otherSession.body.access_token));
    const failed = await api.request('POST', '/v1/auth/password/change', {
      token: user.token,
      body: { current_password: user.password, new_password: newPassword },
    });
    expect(queued.sessionIds).toEqual([]);
    expect(failed.status).toBe(500);

    for (const token of [user.token, otherSession.body.access_token]) {
      expect((await api.request('GET', '/v1/users/me', { token })).status).toBe(200);
    }
    const withOld = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(withOld.status).toBe(200);
    const withNew = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: newPassword },
    });
    expect(withNew.status).toBe(401);
  });
});
