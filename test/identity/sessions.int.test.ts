// Sessions: GET /v1/auth/session, POST /v1/auth/sessions/refresh, session expiry, POST /v1/auth/logout,
// and how a request's credentials are read (cookie, Bearer vs x-api-key precedence, CSRF stance).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  WRITER_SCOPES,
  createKey,
  createManaged,
  grant,
  registerUser,
  registerWriter,
  uniqueTag,
} from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';
import type { Token } from '../support/api-types.js';
import { findSession } from '../../src/components/identity/identity-repository.js';
import { SessionCache } from '../../src/components/identity/session-cache.js';
import { parseSessionToken } from '../../src/platform/auth/secrets.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface Session {
  session_id: string;
  uid: string;
  user_tag: string;
  permissions: string[];
  created_at: string;
  expires_at: string;
  device_id: string | null;
  acting_as: { manager_uid: string } | null;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const THIRTY_DAYS_MS = 30 * 24 * 3600 * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a Set-Cookie value tells the browser to drop the cookie (an expiry in the past). */
function isExpiredCookie(setCookie: string | undefined): boolean {
  if (!setCookie) return false;
  const expires = /;\s*Expires=([^;]+)/i.exec(setCookie)?.[1];
  const maxAge = /;\s*Max-Age=(-?\d+)/i.exec(setCookie)?.[1];
  if (maxAge !== undefined) return Number(maxAge) <= 0;
  return expires !== undefined && Date.parse(expires) < Date.now();
}

/** A session minted from an API key with the given requested permissions. */
async function keySession(requested: string): Promise<{ uid: string; token: string }> {
  const user = await registerWriter(api, { apiAccess: true });
  const { key } = await createKey(api, user.token);
  const res = await api.request<Token>('POST', '/v1/auth/token', {
    apiKey: key,
    body: { requested_permissions: requested },
  });
  expect(res.status).toBe(200);
  return { uid: user.uid, token: res.body.access_token };
}

describe('GET /v1/auth/session', () => {
  it('when a password session reads itself, then the contract shape with the grant as permissions', async () => {
    const user = await registerUser(api);
    const res = await api.request<Session>('GET', '/v1/auth/session', { token: user.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'session_id',
        'uid',
        'user_tag',
        'permissions',
        'created_at',
        'expires_at',
        'device_id',
        'acting_as',
      ].sort(),
    );
    expect(res.body.session_id).toMatch(/^[0-9a-f]{16}$/);
    expect(user.token.startsWith(`svc_session_${res.body.session_id}.`)).toBe(true);
    expect(res.body.uid).toBe(user.uid);
    expect(res.body.user_tag).toBe(user.tag);
    expect(res.body.permissions).toEqual(['messages.read']);
    expect(res.body.device_id).toBeNull();
    expect(res.body.acting_as).toBeNull();
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.expires_at).toMatch(ISO_MS);
    expect(Date.parse(res.body.created_at)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBeGreaterThan(
      THIRTY_DAYS_MS - 60_000,
    );
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBeLessThanOrEqual(
      THIRTY_DAYS_MS + 60_000,
    );
  });

  it('when the session is read twice, then nothing changes between the reads', async () => {
    const user = await registerUser(api);
    const first = await api.request<Session>('GET', '/v1/auth/session', { token: user.token });
    await sleep(20);
    const second = await api.request<Session>('GET', '/v1/auth/session', { token: user.token });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.cookies.svc_session).toBeUndefined();
  });

  it('when a manager delegates to a managed user, then acting_as names the manager', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    const res = await api.request<Session>('GET', '/v1/auth/session', {
      token: delegated.body.access_token,
    });
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(bot.uid);
    expect(res.body.user_tag).toBe(bot.user_tag);
    expect(res.body.acting_as).toEqual({ manager_uid: manager.uid });
  });

  it('when no credentials are sent, then 401 not_authenticated', async () => {
    const res = await api.request('GET', '/v1/auth/session');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
  });

  it('when only an API key is sent, then 401 because a key carries no session', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    expect((await api.request('GET', '/v1/users/me', { apiKey: key })).status).toBe(200);
    const res = await api.request('GET', '/v1/auth/session', { apiKey: key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_session' });
  });

  it('when the token is garbage, then 401 invalid_session', async () => {
    const res = await api.request('GET', '/v1/auth/session', { token: 'svc_session_nope' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_session' });
  });
});

describe('POST /v1/auth/sessions/refresh', () => {
  it('when a session refreshes, then the same token with a later expiry, a new cookie and the correlation id echoed', async () => {
    const user = await registerUser(api);
    const before = await api.request<Session>('GET', '/v1/auth/session', { token: user.token });
    const correlationId = `corr-${uniqueTag()}`;
    const res = await api.request<Token>('POST', '/v1/auth/sessions/refresh', {
      token: user.token,
      body: {},
      headers: { 'X-Correlation-Id': correlationId },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: user.token,
      token_type: 'Bearer',
      expires_in: 30 * 24 * 3600,
      expires_at: expect.stringMatching(ISO_MS),
    });
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.parse(before.body.expires_at));
    expect(res.headers.get('x-correlation-id')).toBe(correlationId);
    const cookie = res.cookies.svc_session;
    expect(cookieValue(cookie)).toBe(user.token);
    expect(cookie).toMatch(/HttpOnly/);
    expect(isExpiredCookie(cookie)).toBe(false);

    const after = await api.request<Session>('GET', '/v1/auth/session', { token: user.token });
    expect(after.body.expires_at).toBe(res.body.expires_at);
    expect(after.body.session_id).toBe(before.body.session_id);
    expect(after.body.created_at).toBe(before.body.created_at);
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(200);
  });

  it('when no body is sent, then the refresh still succeeds', async () => {
    const user = await registerUser(api);
    const res = await api.request<Token>('POST', '/v1/auth/sessions/refresh', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBe(user.token);
  });

  it('when no session is presented, then 401', async () => {
    const res = await api.request('POST', '/v1/auth/sessions/refresh', { body: {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
  });

  it('when only an API key is presented, then 401 because there is no session to extend', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const res = await api.request('POST', '/v1/auth/sessions/refresh', { apiKey: key, body: {} });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_session' });
  });

  it('when a session froze empty permissions and the grant then widens, then reading keeps them and refresh repairs them', async () => {
    const { uid, token } = await keySession('channels.create');
    const minted = await api.request<Session>('GET', '/v1/auth/session', { token });
    expect(minted.body.permissions).toEqual([]);

    await grant(api, uid, { scopes: [...WRITER_SCOPES, 'channels.create'] });
    const read = await api.request<Session>('GET', '/v1/auth/session', { token });
    expect(read.body.permissions).toEqual([]);

    const refreshed = await api.request<Token>('POST', '/v1/auth/sessions/refresh', { token, body: {} });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toBe(token);
    const repaired = await api.request<Session>('GET', '/v1/auth/session', { token });
    expect(repaired.body.permissions).toEqual(['channels.create']);
    const me = await api.request<{ scopes: string[] }>('GET', '/v1/users/me', { token });
    expect(me.body.scopes).toEqual(['channels.create']);
  });

  it('when frozen permissions are not empty, then refresh leaves them as they were', async () => {
    const { uid, token } = await keySession('messages.read');
    await grant(api, uid, { scopes: [...WRITER_SCOPES, 'channels.create'] });
    const refreshed = await api.request('POST', '/v1/auth/sessions/refresh', { token, body: {} });
    expect(refreshed.status).toBe(200);
    const session = await api.request<Session>('GET', '/v1/auth/session', { token });
    expect(session.body.permissions).toEqual(['messages.read']);
  });
});

describe('session expiry', () => {
  let short: TestServer;
  beforeAll(async () => {
    short = await startTestServer({ SKEIN_SESSION_TTL_SECONDS: '1' });
  });
  afterAll(async () => {
    await short.close();
  });

  it('when the session TTL elapses, then the token answers 401 and can no longer be refreshed', async () => {
    const res = await short.request<Token>('POST', '/v1/auth/register', {
      body: { user_tag: uniqueTag(), password: 'plenty-long-passphrase-42' },
    });
    expect(res.status).toBe(200);
    expect(res.body.expires_in).toBe(1);
    const token = res.body.access_token;
    await sleep(1500);
    const session = await short.request('GET', '/v1/auth/session', { token });
    expect(session.status).toBe(401);
    expect(session.body).toMatchObject({ code: 'invalid_session' });
    expect((await short.request('GET', '/v1/users/me', { token })).status).toBe(401);
    expect((await short.request('POST', '/v1/auth/sessions/refresh', { token, body: {} })).status).toBe(401);
  });
});

describe('POST /v1/auth/logout', () => {
  it('when a session logs out, then 200, both session cookies are cleared and the token answers 401', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/logout', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ logged_out: true });
    expect(isExpiredCookie(res.cookies.svc_session)).toBe(true);
    expect(cookieValue(res.cookies.svc_session)).toBe('');
    expect(isExpiredCookie(res.cookies.svc_mgr_session)).toBe(true);
    expect(cookieValue(res.cookies.svc_mgr_session)).toBe('');

    const after = await api.request('GET', '/v1/users/me', { token: user.token });
    expect(after.status).toBe(401);
    expect((await api.request('GET', '/v1/auth/session', { token: user.token })).status).toBe(401);
  });

  it('when the session is logged out through the cookie, then that session ends', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/logout', { cookie: `svc_session=${user.token}` });
    expect(res.status).toBe(200);
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(401);
  });

  it('when logging out again with the same token, then still 200', async () => {
    const user = await registerUser(api);
    expect((await api.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);
    const again = await api.request('POST', '/v1/auth/logout', { token: user.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ logged_out: true });
  });

  it('when logging out with no credentials, then 200 and the cookies are still cleared', async () => {
    const res = await api.request('POST', '/v1/auth/logout');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ logged_out: true });
    expect(isExpiredCookie(res.cookies.svc_session)).toBe(true);
    expect(isExpiredCookie(res.cookies.svc_mgr_session)).toBe(true);
  });

  it('when one session logs out, then the user’s other sessions keep working', async () => {
    const user = await registerUser(api);
    const other = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect((await api.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);
    expect((await api.request('GET', '/v1/users/me', { token: other.body.access_token })).status).toBe(200);
  });
});

describe('credentials', () => {
  it('when only the svc_session cookie is sent, then it authenticates', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ uid: string }>('GET', '/v1/users/me', {
      cookie: `svc_session=${user.token}`,
    });
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(user.uid);
  });

  it('when the svc_session cookie holds a bad token, then 401', async () => {
    const res = await api.request('GET', '/v1/users/me', { cookie: 'svc_session=svc_session_bad' });
    expect(res.status).toBe(401);
  });

  it('when a Bearer of user A and an x-api-key of user B are both sent, then the request acts as A', async () => {
    const a = await registerUser(api);
    const b = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, b.token);
    const res = await api.request<{ uid: string }>('GET', '/v1/users/me', { token: a.token, apiKey: key });
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(a.uid);
  });

  it('when a bad Bearer comes with a good x-api-key, then 401', async () => {
    const b = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, b.token);
    expect((await api.request('GET', '/v1/users/me', { apiKey: key })).status).toBe(200);
    const res = await api.request('GET', '/v1/users/me', {
      token: `svc_session_${'0'.repeat(16)}.${'A'.repeat(43)}`,
      apiKey: key,
    });
    expect(res.status).toBe(401);
  });
});

describe('CSRF stance', () => {
  it('when a cookie-only write comes from another site, then 403 csrf_rejected and nothing changes', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/users/profile', {
      cookie: `svc_session=${user.token}`,
      headers: { origin: 'https://evil.example' },
      body: { bio: 'forged' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'csrf_rejected' });
    const me = await api.request<{ bio: string | null }>('GET', '/v1/users/me', { token: user.token });
    expect(me.body.bio).toBeNull();
  });

  it('when a cookie-only refresh comes from another site, then 403 csrf_rejected', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/sessions/refresh', {
      cookie: `svc_session=${user.token}`,
      headers: { origin: 'https://evil.example' },
      body: {},
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'csrf_rejected' });
  });

  it('when the same cross-site write carries a Bearer token, then it is not refused', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ bio: string | null }>('POST', '/v1/users/profile', {
      token: user.token,
      headers: { origin: 'https://evil.example' },
      body: { bio: 'from a script' },
    });
    expect(res.status).toBe(200);
    expect(res.body.bio).toBe('from a script');
  });

  it('when a cookie-only write comes from the server’s own origin, then it is allowed', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ bio: string | null }>('POST', '/v1/users/profile', {
      cookie: `svc_session=${user.token}`,
      headers: { origin: api.url },
      body: { bio: 'same site' },
    });
    expect(res.status).toBe(200);
    expect(res.body.bio).toBe('same site');
  });

  // Security review 2026-11-23 #13: logout is declared auth 'none', and the Origin check ran only
  // for an authenticated caller, so any site could end a user's session through the cookie.
  it('when a cookie-only logout comes from another site, then 403 csrf_rejected and the session lives on', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/logout', {
      cookie: `svc_session=${user.token}`,
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'csrf_rejected' });
    expect(res.cookies.svc_session).toBeUndefined();
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(200);
  });

  it('when a cross-site logout carries only the svc_mgr_session cookie, then 403 csrf_rejected and that session lives on', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/logout', {
      cookie: `svc_mgr_session=${user.token}`,
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'csrf_rejected' });
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(200);
  });

  it('when a cookie-only logout comes from the server’s own origin, then the session ends', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/logout', {
      cookie: `svc_session=${user.token}`,
      headers: { origin: api.url },
    });
    expect(res.status).toBe(200);
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(401);
  });

  it('when a cookie-only read comes from another site, then it is not refused', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ uid: string }>('GET', '/v1/users/me', {
      cookie: `svc_session=${user.token}`,
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(user.uid);
  });
});

describe('the cache of session records', () => {
  it('when a record is past its time to live, then the cache lets go of it without waiting for a write', async () => {
    const { config, db, log } = api.ctx;
    const cache = await SessionCache.start(config, db, log, 200);
    try {
      const user = await registerUser(api);
      const sessionId = parseSessionToken(user.token)!.id;
      const found = await cache.lookup(sessionId, () => findSession(db, sessionId));
      expect(found?.user.uid).toBe(user.uid);
      expect(cache.size).toBe(1);
      // One time to live for the record, at most one more for the sweep to come round.
      await sleep(600);
      expect(cache.size).toBe(0);
    } finally {
      await cache.close();
    }
  });

  it('when a record past half its time to live is used, then it answers and is read again behind it; a session ended meanwhile goes', async () => {
    const { config, db, log } = api.ctx;
    const cache = await SessionCache.start(config, db, log, 1000);
    try {
      const user = await registerUser(api);
      const sessionId = parseSessionToken(user.token)!.id;
      let reads = 0;
      const load = () => {
        reads++;
        return findSession(db, sessionId);
      };
      await cache.lookup(sessionId, load);
      expect(reads).toBe(1);
      await sleep(300);
      expect((await cache.lookup(sessionId, load))?.user.uid).toBe(user.uid);
      expect(reads).toBe(1);
      await sleep(600);
      // Past half its time to live: answered from the cache, and read again once behind the answers.
      const [a, b] = await Promise.all([cache.lookup(sessionId, load), cache.lookup(sessionId, load)]);
      expect([a?.user.uid, b?.user.uid]).toEqual([user.uid, user.uid]);
      expect(reads).toBe(2);
      // Past the first read's time to live (1 s), within the second's half: the record read again answers.
      await sleep(250);
      expect((await cache.lookup(sessionId, load))?.user.uid).toBe(user.uid);
      expect(reads).toBe(2);

      // The session ends where this cache does not hear of it (as on another instance, Redis lost).
      await sleep(400);
      const ended = () => {
        reads++;
        return Promise.resolve(null);
      };
      expect((await cache.lookup(sessionId, ended))?.user.uid).toBe(user.uid);
      await sleep(50);
      expect(reads).toBe(3);
      expect(cache.size).toBe(0);
      expect(await cache.lookup(sessionId, ended)).toBeNull();
    } finally {
      await cache.close();
    }
  });
});
