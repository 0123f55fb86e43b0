// The caller's sessions: GET /v1/auth/sessions, DELETE /v1/auth/sessions/{session_id} and
// POST /v1/auth/sessions/revoke-others, over REST and GraphQL, and on two instances sharing one
// Redis (an ended session fails at once on the other instance too).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Token } from '../support/api-types.js';
import {
  createKey,
  createManaged,
  registerUser,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface SessionEntry {
  session_id: string;
  device_id: string | null;
  method: string | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  acting_as: { manager_uid: string } | null;
  current: boolean;
}

const ENTRY_FIELDS = [
  'acting_as',
  'created_at',
  'current',
  'device_id',
  'expires_at',
  'last_used_at',
  'method',
  'session_id',
];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function list(
  credentials: { token?: string; apiKey?: string },
  server: TestServer = api,
): Promise<SessionEntry[]> {
  const res = await server.request<{ sessions: SessionEntry[] }>('GET', '/v1/auth/sessions', credentials);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['sessions']);
  return res.body.sessions;
}

async function sessionIdOf(token: string, server: TestServer = api): Promise<string> {
  const res = await server.request<{ session_id: string }>('GET', '/v1/auth/session', { token });
  expect(res.status).toBe(200);
  return res.body.session_id;
}

async function logIn(user: TestUser, server: TestServer = api): Promise<string> {
  const res = await server.request<Token>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: user.password },
  });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

const statusWith = async (token: string, server: TestServer = api) =>
  (await server.request('GET', '/v1/users/me', { token })).status;

/** The halves of a session token `svc_session_<id>.<secret>`. */
const idOf = (token: string) => token.slice('svc_session_'.length, token.indexOf('.'));
const secretOf = (token: string) => token.slice(token.indexOf('.') + 1);

describe('GET /v1/auth/sessions', () => {
  it('when a user is signed in twice, then both sessions are listed newest first, the current one marked, and nothing secret', async () => {
    const user = await registerUser(api);
    const second = await logIn(user);
    const sessions = await list({ token: second });
    expect(sessions).toHaveLength(2);
    for (const entry of sessions) {
      expect(Object.keys(entry).sort()).toEqual(ENTRY_FIELDS);
      expect(entry.session_id).toMatch(/^[0-9a-f]{16}$/);
      expect(entry.created_at).toMatch(ISO_MS);
      expect(entry.expires_at).toMatch(ISO_MS);
      expect(entry.last_used_at).toMatch(ISO_MS);
    }
    const [newest, older] = sessions as [SessionEntry, SessionEntry];
    expect(newest).toMatchObject({
      session_id: await sessionIdOf(second),
      current: true,
      method: 'password',
      device_id: null,
      acting_as: null,
    });
    expect(older).toMatchObject({
      session_id: await sessionIdOf(user.token),
      current: false,
      method: 'registration',
    });
    expect(Date.parse(newest.created_at)).toBeGreaterThanOrEqual(Date.parse(older.created_at));
    const text = JSON.stringify(sessions);
    for (const token of [user.token, second]) {
      expect(text).not.toContain(secretOf(token));
      expect(text).not.toContain(token);
    }
  });

  it('when the caller uses an API key, then the user’s sessions are listed and none is current; a key’s session says api_key and its device', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const exchanged = await api.request<Token>('POST', '/v1/auth/token', {
      apiKey: key,
      body: { device_id: 'build-runner-7' },
    });
    expect(exchanged.status).toBe(200);
    const sessions = await list({ apiKey: key });
    expect(sessions.map((entry) => entry.current)).toEqual(sessions.map(() => false));
    expect(sessions.find((entry) => entry.device_id === 'build-runner-7')).toMatchObject({
      session_id: await sessionIdOf(exchanged.body.access_token),
      method: 'api_key',
    });
    expect(sessions.map((entry) => entry.session_id)).toContain(await sessionIdOf(user.token));
  });

  it('when a session ended with the key it was minted from, then it is not listed', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key, key_id } = await createKey(api, user.token);
    const exchanged = await api.request<Token>('POST', '/v1/auth/token', { apiKey: key, body: {} });
    const keySessionId = await sessionIdOf(exchanged.body.access_token);
    expect((await list({ token: user.token })).map((entry) => entry.session_id)).toContain(keySessionId);
    expect((await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token })).status).toBe(200);
    expect((await list({ token: user.token })).map((entry) => entry.session_id)).not.toContain(keySessionId);
  });

  it('when a manager’s delegated token lists sessions, then it sees the bot’s sessions only, itself current and marked as a delegation', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    const sessions = await list({ token: delegated.body.access_token });
    expect(sessions).toEqual([
      expect.objectContaining({
        session_id: await sessionIdOf(delegated.body.access_token),
        current: true,
        method: 'delegation',
        acting_as: { manager_uid: manager.uid },
      }),
    ]);
  });

  it('when a session is used, then last_used_at is written at most once a minute, not per request', async () => {
    const user = await registerUser(api);
    // A fresh login: no request has presented this token yet, so no instance has cached it.
    const token = await logIn(user);
    const sessionId = idOf(token);
    const storedLastUse = async () =>
      (
        await api.ctx.db.runText('MATCH (s:Session {id: $id}) RETURN toString(s.last_used_at) AS at', {
          id: sessionId,
        })
      )[0]!.at as string;
    const setLastUse = (ago: number) =>
      api.ctx.db.runText('MATCH (s:Session {id: $id}) SET s.last_used_at = datetime($at)', {
        id: sessionId,
        at: new Date(Date.now() - ago).toISOString(),
      });

    await setLastUse(120_000);
    const old = Date.parse(await storedLastUse());
    expect(await statusWith(token)).toBe(200);
    const deadline = Date.now() + 5000;
    while (Date.parse(await storedLastUse()) === old && Date.now() < deadline) await sleep(50);
    const touched = Date.parse(await storedLastUse());
    expect(touched).toBeGreaterThan(Date.now() - 10_000);
    expect(Date.parse((await list({ token })).find((entry) => entry.current)!.last_used_at!)).toBe(touched);

    // Within the minute: neither the cached record nor a fresh read leads to another write.
    await setLastUse(30_000);
    const recent = await storedLastUse();
    for (let i = 0; i < 3; i++) expect(await statusWith(token)).toBe(200);
    await api.ctx.sessions.invalidateEverywhere();
    for (let i = 0; i < 3; i++) expect(await statusWith(token)).toBe(200);
    await sleep(300);
    expect(await storedLastUse()).toBe(recent);
  });

  it('when nobody is signed in, then 401', async () => {
    const res = await api.request('GET', '/v1/auth/sessions');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'not_authenticated', detail: expect.any(String) });
  });
});

describe('DELETE /v1/auth/sessions/{session_id}', () => {
  it('when another of my sessions is ended, then its token gets 401 at once, it leaves the list, and mine still works', async () => {
    const user = await registerUser(api);
    const other = await logIn(user);
    expect(await statusWith(other)).toBe(200);
    const otherId = await sessionIdOf(other);
    const res = await api.request('DELETE', `/v1/auth/sessions/${otherId}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ session_id: otherId, revoked: true });
    expect(await statusWith(other)).toBe(401);
    expect(await statusWith(user.token)).toBe(200);
    expect((await list({ token: user.token })).map((entry) => entry.session_id)).toEqual([
      await sessionIdOf(user.token),
    ]);
    const again = await api.request('DELETE', `/v1/auth/sessions/${otherId}`, { token: user.token });
    expect(again.status).toBe(200);
  });

  it('when an ended session asks for a refresh, then 401 and it stays ended', async () => {
    const user = await registerUser(api);
    const other = await logIn(user);
    const otherId = await sessionIdOf(other);
    expect((await api.request('DELETE', `/v1/auth/sessions/${otherId}`, { token: user.token })).status).toBe(
      200,
    );
    const refresh = await api.request('POST', '/v1/auth/sessions/refresh', { token: other, body: {} });
    expect(refresh.status).toBe(401);
    expect(refresh.body).toEqual({ code: 'invalid_session', detail: expect.any(String) });
    expect(await statusWith(other)).toBe(401);
  });

  it('when the current session ends itself through its cookie, then it works like logout: the cookie is cleared and the session is over', async () => {
    const user = await registerUser(api);
    const login = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const cookie = `svc_session=${cookieValue(login.cookies.svc_session)}`;
    const id = await sessionIdOf(login.body.access_token);
    const res = await api.request('DELETE', `/v1/auth/sessions/${id}`, { cookie });
    expect(res.status).toBe(200);
    expect(res.cookies.svc_session).toMatch(/^svc_session=;/);
    expect((await api.request('GET', '/v1/users/me', { cookie })).status).toBe(401);
    expect(await statusWith(user.token)).toBe(200);
  });

  it('when a Bearer token ends another session, then a cookie holding a third session is left alone', async () => {
    const user = await registerUser(api);
    const cookieToken = await logIn(user);
    const other = await logIn(user);
    const res = await api.request('DELETE', `/v1/auth/sessions/${await sessionIdOf(other)}`, {
      token: user.token,
      cookie: `svc_session=${cookieToken}`,
    });
    expect(res.status).toBe(200);
    expect(res.cookies.svc_session).toBeUndefined();
    expect(await statusWith(cookieToken)).toBe(200);
  });

  it('when the id is someone else’s session or no session at all, then 404 session_not_found, and their session lives on', async () => {
    const owner = await registerUser(api);
    const stranger = await registerUser(api);
    const ownerId = await sessionIdOf(owner.token);
    const theirs = await api.request('DELETE', `/v1/auth/sessions/${ownerId}`, { token: stranger.token });
    const nobody = await api.request('DELETE', '/v1/auth/sessions/0123456789abcdef', {
      token: stranger.token,
    });
    for (const res of [theirs, nobody]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'session_not_found', detail: 'You have no session with that id.' });
    }
    expect(await statusWith(owner.token)).toBe(200);
  });

  it('when the id is not a session id, then 422 on the path', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ detail: { loc: string[] }[] }>('DELETE', '/v1/auth/sessions/nope', {
      token: user.token,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]!.loc).toEqual(['path', 'session_id']);
  });

  it('when a manager ends the session a delegated token was minted through, then the delegated token fails too', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const parent = await logIn(manager);
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: parent,
      body: { managed_uid: bot.uid },
    });
    expect(await statusWith(delegated.body.access_token)).toBe(200);
    const res = await api.request('DELETE', `/v1/auth/sessions/${await sessionIdOf(parent)}`, {
      token: manager.token,
    });
    expect(res.status).toBe(200);
    expect(await statusWith(delegated.body.access_token)).toBe(401);
  });
});

describe('POST /v1/auth/sessions/revoke-others', () => {
  it('when a user signs out everywhere else, then every other session gets 401 and the current one keeps working', async () => {
    const user = await registerUser(api);
    const others = [user.token, await logIn(user), await logIn(user)];
    for (const token of others) expect(await statusWith(token)).toBe(200);
    const current = await logIn(user);
    const res = await api.request<{ revoked: string[] }>('POST', '/v1/auth/sessions/revoke-others', {
      token: current,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['revoked']);
    expect([...res.body.revoked].sort()).toEqual(others.map(idOf).sort());
    for (const token of others) expect(await statusWith(token)).toBe(401);
    expect(await statusWith(current)).toBe(200);
    expect(await list({ token: current })).toEqual([
      expect.objectContaining({ session_id: await sessionIdOf(current), current: true }),
    ]);
  });

  it('when an API key asks, then there is no current session and every session ends', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const res = await api.request<{ revoked: string[] }>('POST', '/v1/auth/sessions/revoke-others', {
      apiKey: key,
    });
    expect(res.status).toBe(200);
    expect(res.body.revoked).toContain(idOf(user.token));
    expect(await statusWith(user.token)).toBe(401);
    expect(await list({ apiKey: key })).toEqual([]);
  });
});

describe('sessions through GraphQL', () => {
  it('when sessions are listed and ended through GraphQL, then the answers are REST’s', async () => {
    const user = await registerUser(api);
    const other = await logIn(user);
    const third = await logIn(user);
    const listed = await api.graphql<{ sessions: SessionEntry[] }>(
      '{ sessions { session_id device_id method created_at last_used_at expires_at acting_as { manager_uid } current } }',
      {},
      { token: user.token },
    );
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data!.sessions).toEqual(await list({ token: user.token }));

    const otherId = await sessionIdOf(other);
    const one = await api.graphql<{ revokeSession: { session_id: string; revoked: boolean } }>(
      'mutation($id: String!) { revokeSession(session_id: $id) { session_id revoked } }',
      { id: otherId },
      { token: user.token },
    );
    expect(one.body.data!.revokeSession).toEqual({ session_id: otherId, revoked: true });
    expect(await statusWith(other)).toBe(401);

    const missing = await api.graphql(
      'mutation { revokeSession(session_id: "0123456789abcdef") { session_id } }',
      {},
      { token: user.token },
    );
    expect(missing.body.errors?.[0]?.extensions).toMatchObject({ code: 'session_not_found', status: 404 });

    const rest = await api.graphql<{ revokeOtherSessions: { revoked: string[] } }>(
      'mutation { revokeOtherSessions { revoked } }',
      {},
      { token: user.token },
    );
    expect(rest.body.data!.revokeOtherSessions.revoked).toEqual([idOf(third)]);
    expect(await statusWith(third)).toBe(401);
    expect(await statusWith(user.token)).toBe(200);
  });
});

describe('two instances on one Redis', () => {
  let redis: RedisServer;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    redis = await startRedisServer();
    a = await startTestServer({ REDIS_URL: redis.url });
    b = await startTestServer({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('when a session is ended on instance A, then instance B, which had it cached, refuses it at once', async () => {
    const user = await registerUser(a);
    const other = await logIn(user, a);
    // B now holds the session in its cache.
    expect(await statusWith(other, b)).toBe(200);
    expect(await statusWith(other, b)).toBe(200);
    const res = await a.request('DELETE', `/v1/auth/sessions/${await sessionIdOf(other, a)}`, {
      token: user.token,
    });
    expect(res.status).toBe(200);
    expect(await statusWith(other, b)).toBe(401);
    expect(await statusWith(user.token, b)).toBe(200);
  });

  it('when the others are signed out on B, then A, which had them cached, refuses them at once', async () => {
    const user = await registerUser(b);
    const others = [await logIn(user, a), await logIn(user, a)];
    for (const token of others) expect(await statusWith(token, a)).toBe(200);
    const res = await b.request('POST', '/v1/auth/sessions/revoke-others', { token: user.token });
    expect(res.status).toBe(200);
    for (const token of others) expect(await statusWith(token, a)).toBe(401);
    expect(await statusWith(user.token, a)).toBe(200);
  });
});
