// Rate limits on the auth endpoints: per client address (SKEIN_RATE_LIMIT_AUTH_PER_MIN) on REST and
// GraphQL, and per account for failed password logins (SKEIN_LOGIN_FAILURES_PER_15_MIN). Each case
// runs its own server, so one case's spent budget never leaks into another.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freshDataDir, verifyEmail } from '../contacts/contact-helpers.js';
import { STRONG_PASSWORD, registerUser, uniqueTag } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';

const PER_MINUTE = 5;

/** A server whose auth endpoints allow PER_MINUTE requests per address per minute. */
function limitedServer(): () => TestServer {
  let api: TestServer | undefined;
  beforeAll(async () => {
    api = await startTestServer({ SKEIN_RATE_LIMIT_AUTH_PER_MIN: String(PER_MINUTE) });
  });
  afterAll(async () => {
    await api?.close();
  });
  return () => api!;
}

function expectRateLimited(res: ApiResponse<unknown>): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

const wrongLogin = () => ({ user_tag: uniqueTag('nobody'), password: 'not-the-password-at-all' });

describe('POST /v1/auth/password/login, per address', () => {
  const api = limitedServer();

  it('when an address sends more than the limit, then the next request is 429 with Retry-After, and the RateLimit headers count down before it', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < PER_MINUTE; i += 1) {
      const res = await api().request('POST', '/v1/auth/password/login', { body: wrongLogin() });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-limit')).toBe(String(PER_MINUTE));
      const reset = Number(res.headers.get('ratelimit-reset'));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const sixth = await api().request('POST', '/v1/auth/password/login', { body: wrongLogin() });
    expectRateLimited(sixth);
    expect(sixth.headers.get('ratelimit-limit')).toBe(String(PER_MINUTE));
    expect(sixth.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('when the address budget is spent, then the other auth endpoints refuse it too, and other routes do not', async () => {
    const register = await api().request('POST', '/v1/auth/register', {
      body: { user_tag: uniqueTag(), password: STRONG_PASSWORD },
    });
    expectRateLimited(register);
    expectRateLimited(await api().request('POST', '/v1/auth/token', { apiKey: 'sk_nonsense' }));
    const health = await api().request('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('POST /v1/auth/token, per address', () => {
  const api = limitedServer();

  it('when an address exchanges keys more than the limit, then 429 with Retry-After', async () => {
    for (let i = 0; i < PER_MINUTE; i += 1) {
      const res = await api().request('POST', '/v1/auth/token', { apiKey: 'sk_nonsense' });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(PER_MINUTE - 1 - i));
    }
    expectRateLimited(await api().request('POST', '/v1/auth/token', { apiKey: 'sk_nonsense' }));
  });
});

describe('POST /v1/auth/register, per address', () => {
  const api = limitedServer();

  it('when an address registers more than the limit, then 429 and no account is created', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < PER_MINUTE; i += 1) {
      const res = await api().request<{ access_token: string }>('POST', '/v1/auth/register', {
        body: { user_tag: uniqueTag(), password: STRONG_PASSWORD },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(PER_MINUTE - 1 - i));
      tokens.push(res.body.access_token);
    }
    const tag = uniqueTag();
    expectRateLimited(
      await api().request('POST', '/v1/auth/register', {
        body: { user_tag: tag, password: STRONG_PASSWORD },
      }),
    );
    const lookup = await api().request('GET', `/v1/users/by-tag/${tag}`, { token: tokens[0] });
    expect(lookup.status).toBe(404);
  });
});

describe('GraphQL login, per address', () => {
  const api = limitedServer();
  const LOGIN = 'mutation { login(input: {user_tag: "x", password: "y"}) { access_token } }';

  it('when an address calls the login mutation more than the limit, then an error with code rate_limited', async () => {
    for (let i = 0; i < PER_MINUTE; i += 1) {
      const res = await api().graphql(LOGIN);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('invalid_credentials');
    }
    const sixth = await api().graphql(LOGIN);
    expect(sixth.body.data).toBeNull();
    expect(sixth.body.errors?.[0]?.extensions?.code).toBe('rate_limited');
  });

  it('when GraphQL spent the budget, then REST login is refused as well', async () => {
    expectRateLimited(await api().request('POST', '/v1/auth/password/login', { body: wrongLogin() }));
  });
});

describe('failed password logins, per account', () => {
  const FAILURES = 3;
  // Its own outbox, to verify emails: only a verified email names an account at login.
  const dataDir = freshDataDir();
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer({
      SKEIN_LOGIN_FAILURES_PER_15_MIN: String(FAILURES),
      SKEIN_DATA_DIR: dataDir,
    });
  });
  afterAll(async () => {
    await api.close();
  });

  const login = (body: Record<string, unknown>) => api.request('POST', '/v1/auth/password/login', { body });

  it('when an account had 3 wrong passwords, then even the right one is 429 with Retry-After, while another account still signs in', async () => {
    const victim = await registerUser(api);
    const bystander = await registerUser(api);
    for (let i = 0; i < FAILURES; i += 1) {
      const res = await login({ user_tag: victim.tag, password: 'not-the-password-at-all' });
      expect(res.status).toBe(401);
    }
    const blocked = await login({ user_tag: victim.tag, password: victim.password });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);

    expect((await login({ user_tag: bystander.tag, password: bystander.password })).status).toBe(200);
    // The victim's existing session is not affected, only new sign-ins.
    expect((await api.request('GET', '/v1/users/me', { token: victim.token })).status).toBe(200);
  });

  it('when the tag is written another way after the failures, then the account is still blocked', async () => {
    const victim = await registerUser(api, { tag: uniqueTag('Blk') });
    for (let i = 0; i < FAILURES; i += 1) {
      await login({ user_tag: victim.tag, password: 'not-the-password-at-all' });
    }
    const res = await login({ user_tag: `@${victim.tag.toUpperCase()}`, password: victim.password });
    expect(res.status).toBe(429);
  });

  it('when the failures were by tag, then signing in to the same account by email is blocked too', async () => {
    const email = `${uniqueTag('mail')}@example.test`;
    const victim = await registerUser(api, { email });
    await verifyEmail(api, dataDir, victim.token, email);
    for (let i = 0; i < FAILURES; i += 1) {
      await login({ user_tag: victim.tag, password: 'not-the-password-at-all' });
    }
    const res = await login({ email, password: victim.password });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'rate_limited' });
  });

  it('when fewer failures than the limit are followed by a success, then the count starts again', async () => {
    const user = await registerUser(api);
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < FAILURES - 1; i += 1) {
        expect((await login({ user_tag: user.tag, password: 'not-the-password-at-all' })).status).toBe(401);
      }
      expect((await login({ user_tag: user.tag, password: user.password })).status).toBe(200);
    }
  });
});

describe('failed password logins from several addresses: no lockout button (security finding #9)', () => {
  const FAILURES = 3;
  let api: TestServer;
  beforeAll(async () => {
    // Behind a trusted proxy, X-Forwarded-For names the client address.
    api = await startTestServer({
      SKEIN_LOGIN_FAILURES_PER_15_MIN: String(FAILURES),
      SKEIN_TRUST_PROXY: 'true',
      SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    });
  });
  afterAll(async () => {
    await api.close();
  });

  const login = (address: string, body: Record<string, unknown>) =>
    api.request('POST', '/v1/auth/password/login', { body, headers: { 'x-forwarded-for': address } });
  const wrong = (tag: string) => ({ user_tag: tag, password: 'not-the-password-at-all' });

  it("when a stranger's address spent its tries on an account, then that address is refused and the owner on another address signs in at once", async () => {
    const owner = await registerUser(api);
    for (let i = 0; i < FAILURES; i += 1)
      expect((await login('198.51.100.7', wrong(owner.tag))).status).toBe(401);
    expect((await login('198.51.100.7', { user_tag: owner.tag, password: owner.password })).status).toBe(429);
    expect((await login('203.0.113.20', { user_tag: owner.tag, password: owner.password })).status).toBe(200);
  });

  it("when failures from many addresses pass the account's budget, then attempts on it are paced, not refused for the window, and the owner gets in after the wait", async () => {
    const owner = await registerUser(api);
    // Ten times the per-address budget, spread over ten addresses: the account's own budget.
    for (let address = 1; address <= 10; address += 1)
      for (let i = 0; i < FAILURES; i += 1)
        expect((await login(`198.51.100.${address}`, wrong(owner.tag))).status).toBe(401);
    // Past it, one attempt on the account per pace interval, whoever makes it.
    expect((await login('198.51.100.11', wrong(owner.tag))).status).toBe(401);
    const paced = await login('203.0.113.30', { user_tag: owner.tag, password: owner.password });
    expect(paced.status).toBe(429);
    expect(paced.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
    const retryAfter = Number(paced.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    expect((await login('203.0.113.30', { user_tag: owner.tag, password: owner.password })).status).toBe(200);
  });
});
