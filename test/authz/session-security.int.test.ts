// Session security (OWASP API2): every sign-in mints a fresh session whatever cookie the browser
// already holds (no fixation), logging out or revoking ends a session at once, and the session
// cookie carries its protective flags.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser, STRONG_PASSWORD } from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});

afterAll(async () => {
  await api.close();
});

async function login(tag: string, cookie?: string) {
  return api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: tag, password: STRONG_PASSWORD },
    ...(cookie ? { cookie } : {}),
  });
}

describe('sessions', () => {
  it('when a browser signs in holding a planted session cookie, then it gets a new session and the planted one stays foreign', async () => {
    const victim = await registerUser(api);
    const attacker = await registerUser(api);
    const planted = `svc_session=${attacker.token}`;
    const res = await login(victim.tag, planted);
    expect(res.status).toBe(200);
    const issued = cookieValue(res.cookies.svc_session);
    expect(issued).toBe(res.body.access_token);
    expect(issued).not.toBe(attacker.token);
    // The planted session is still the attacker's, not the victim's.
    const plantedMe = await api.request<{ uid: string }>('GET', '/v1/users/me', { token: attacker.token });
    expect(plantedMe.body.uid).toBe(attacker.uid);
  });

  it('when the same user signs in twice, then each sign-in has its own token', async () => {
    const user = await registerUser(api);
    const first = await login(user.tag);
    const second = await login(user.tag);
    expect(new Set([user.token, first.body.access_token, second.body.access_token]).size).toBe(3);
  });

  it('when a session logs out, then its token answers 401 on the next request while other sessions live on', async () => {
    const user = await registerUser(api);
    const other = await login(user.tag);
    expect((await api.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(401);
    expect((await api.request('GET', '/v1/users/me', { token: other.body.access_token })).status).toBe(200);
  });

  it('when a session cookie is set, then it is HttpOnly, SameSite=Lax and scoped to the whole site', async () => {
    const user = await registerUser(api);
    const cookie = (await login(user.tag)).cookies.svc_session!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
  });
});
