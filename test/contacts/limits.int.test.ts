// Rate limits of contact verification and password reset, with small budgets
// (SKEIN_VERIFICATION_REQUESTS_PER_HOUR=3, SKEIN_CODE_FAILURES_PER_15_MIN=3): per account and per
// address for asking; for wrong codes, per account (contact verification, where only the signed-in
// owner tries) or per account and client address (password reset, which strangers can reach).
// Over a limit: 429, Retry-After, RateLimit-*.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';
import { freshDataDir, latestCode, otherCode, uniqueEmail } from './contact-helpers.js';

let api: TestServer;
const dataDir = freshDataDir();
beforeAll(async () => {
  api = await startTestServer({
    SKEIN_DATA_DIR: dataDir,
    SKEIN_VERIFICATION_REQUESTS_PER_HOUR: '3',
    SKEIN_CODE_FAILURES_PER_15_MIN: '3',
    // Behind a trusted proxy, X-Forwarded-For names the client address (one case uses two).
    SKEIN_TRUST_PROXY: 'true',
  });
});
afterAll(async () => {
  await api.close();
});

function expectLimited(res: ApiResponse): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ code: 'rate_limited', detail: expect.any(String) });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('ratelimit-limit')).toBe('3');
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
}

const requestEmail = (token: string, email: string) =>
  api.request('POST', '/v1/auth/contacts/email/request', { token, body: { email } });

describe('limits on asking for codes', () => {
  it('when one account asks for more codes than allowed, then 429 for it and not for others', async () => {
    const user = await registerUser(api);
    for (let i = 0; i < 3; i++) expect((await requestEmail(user.token, uniqueEmail())).status).toBe(200);
    expectLimited(await requestEmail(user.token, uniqueEmail()));
    const phone = await api.request('POST', '/v1/auth/contacts/phone/request', {
      token: user.token,
      body: { phone: '+12125550100' },
    });
    expect(phone.status).toBe(429);
    const other = await registerUser(api);
    expect((await requestEmail(other.token, uniqueEmail())).status).toBe(200);
  });

  it('when one address is asked for by several accounts, then 429 past its budget', async () => {
    const email = uniqueEmail('target');
    for (let i = 0; i < 3; i++) {
      const user = await registerUser(api);
      expect((await requestEmail(user.token, email)).status).toBe(200);
    }
    const late = await registerUser(api);
    expectLimited(await requestEmail(late.token, email));
  });

  it('when one reset target is asked for too often, then 429, whether or not the account exists', async () => {
    const email = uniqueEmail('nobody');
    for (let i = 0; i < 3; i++) {
      const res = await api.request('POST', '/v1/auth/password/reset/request', { body: { email } });
      expect(res.status).toBe(200);
    }
    expectLimited(await api.request('POST', '/v1/auth/password/reset/request', { body: { email } }));
  });
});

/** A new account with a verified email, and the code of a password reset asked for that email. */
async function resetCodeOfNewAccount(): Promise<{ email: string; code: string }> {
  const user = await registerUser(api);
  const email = uniqueEmail();
  expect((await requestEmail(user.token, email)).status).toBe(200);
  const verify = await api.request('POST', '/v1/auth/contacts/email/verify', {
    token: user.token,
    body: { email, code: await latestCode(dataDir, email) },
  });
  expect(verify.status).toBe(200);
  const reset = await api.request('POST', '/v1/auth/password/reset/request', { body: { email } });
  expect(reset.status).toBe(200);
  return { email, code: await latestCode(dataDir, email, 2) };
}

describe('limits on wrong codes', () => {
  it('when an account sends too many wrong codes, then 429 even for the right one', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    expect((await requestEmail(user.token, email)).status).toBe(200);
    const code = await latestCode(dataDir, email);
    let wrong = code;
    for (let i = 0; i < 3; i++) {
      wrong = otherCode(wrong);
      const res = await api.request('POST', '/v1/auth/contacts/email/verify', {
        token: user.token,
        body: { email, code: wrong },
      });
      expect(res.status).toBe(400);
    }
    expectLimited(
      await api.request('POST', '/v1/auth/contacts/email/verify', {
        token: user.token,
        body: { email, code },
      }),
    );
  });

  it("when a stranger's address spent its tries on reset codes, then the owner's right code from another address still works", async () => {
    const { email, code } = await resetCodeOfNewAccount();
    const attempt = (address: string, guess: string) =>
      api.request('POST', '/v1/auth/password/reset', {
        body: { email, code: guess, new_password: 'a-brand-new-passphrase-78' },
        headers: { 'x-forwarded-for': address },
      });
    let wrong = code;
    for (let i = 0; i < 3; i++) {
      wrong = otherCode(wrong);
      expect((await attempt('198.51.100.9', wrong)).status).toBe(400);
    }
    expectLimited(await attempt('198.51.100.9', code));
    // Three wrong tries of five: the code lives, and works for its owner elsewhere.
    expect((await attempt('203.0.113.9', code)).status).toBe(200);
  });

  it('when wrong reset codes reach the limit, then 429 even for the right one', async () => {
    const { email, code } = await resetCodeOfNewAccount();
    const attempt = (guess: string) =>
      api.request('POST', '/v1/auth/password/reset', {
        body: { email, code: guess, new_password: 'a-brand-new-passphrase-77' },
      });
    let wrong = code;
    for (let i = 0; i < 3; i++) {
      wrong = otherCode(wrong);
      expect((await attempt(wrong)).status).toBe(400);
    }
    expectLimited(await attempt(code));
  });
});
