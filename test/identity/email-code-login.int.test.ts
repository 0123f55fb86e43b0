// Sign-in by email code: POST /v1/auth/email-code/request and POST /v1/auth/email-code/login (no
// authentication), over REST and GraphQL. Codes are mailed after the answer through the `log`
// transport, so tests read them from this file's own outbox. Expiry and limits run on servers of
// their own (a 1-second code lifetime; budgets of 3) against the same database.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  freshDataDir,
  latestCode,
  otherCode,
  outboxLines,
  uniqueEmail,
  verifyEmail,
  type ChallengeBody,
} from '../contacts/contact-helpers.js';
import type { Token } from '../support/api-types.js';
import { grant, registerUser, type TestUser } from '../support/factories.js';
import { cookieValue, startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';

let api: TestServer;
const dataDir = freshDataDir();
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir });
});
afterAll(async () => {
  await api.close();
});

const DEVICE = 'ada-phone';

async function verifiedUser(email = uniqueEmail()): Promise<TestUser & { email: string }> {
  const user = await registerUser(api);
  await verifyEmail(api, dataDir, user.token, email);
  return { ...user, email };
}

const askCode = (email: string, server: TestServer = api) =>
  server.request<ChallengeBody>('POST', '/v1/auth/email-code/request', { body: { email } });
const logIn = (
  body: Record<string, unknown>,
  server: TestServer = api,
  headers: Record<string, string> = {},
) => server.request<Token>('POST', '/v1/auth/email-code/login', { body, headers });

const mailsTo = (to: string, dir = dataDir) => outboxLines(dir).filter((line) => line.to === to).length;

/** Asks for a sign-in code and answers it once it is in the outbox. */
async function signInCode(email: string, server: TestServer = api, dir = dataDir): Promise<string> {
  const before = mailsTo(email, dir);
  const res = await askCode(email, server);
  expect(res.status).toBe(200);
  return latestCode(dir, email, before + 1);
}

/** Waits a moment for a mail that should not come, then says how many went to `to`. */
async function mailsAfterPause(to: string, dir = dataDir): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  return mailsTo(to, dir);
}

const INVALID_CODE = { code: 'invalid_code', detail: 'The code is wrong or no longer valid.' };

function expectInvalidCode(res: ApiResponse<unknown>): void {
  expect(res.status).toBe(400);
  expect(res.body).toEqual(INVALID_CODE);
}

const status = async (token: string) => (await api.request('GET', '/v1/users/me', { token })).status;

describe('POST /v1/auth/email-code/request', () => {
  it('when the account verified the email, then a ChallengeResponse and a sign-in code by email', async () => {
    const user = await verifiedUser();
    const before = mailsTo(user.email);
    const res = await askCode(user.email.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      challenge_id: expect.any(String),
      expires_at: expect.any(String),
      sent: true,
    });
    const code = await latestCode(dataDir, user.email, before + 1);
    expect(code).toMatch(/^\d{6}$/);
    const line = outboxLines(dataDir)
      .filter((entry) => entry.to === user.email)
      .pop()!;
    expect(line).toEqual({
      to: user.email,
      kind: 'email',
      subject: 'Your Skein sign-in code',
      body: expect.stringContaining(code),
      code,
    });
    expect(JSON.stringify(res.body)).not.toContain(code);
  });

  it('when no account has the email, then the same answer as for a known one, and nothing is sent', async () => {
    const known = await verifiedUser();
    const unknown = uniqueEmail('nobody');
    const [a, b] = [await askCode(known.email), await askCode(unknown)];
    expect(b.status).toBe(a.status);
    expect(Object.keys(b.body).sort()).toEqual(Object.keys(a.body).sort());
    expect(b.body).toEqual({
      challenge_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      expires_at: expect.any(String),
      sent: true,
    });
    expect(b.headers.get('content-length')).toBe(a.headers.get('content-length'));
    expect(await mailsAfterPause(unknown)).toBe(0);
  });

  it('when the email was only given at registration and never verified, then 200 and no code goes there', async () => {
    const email = uniqueEmail('unverified');
    await registerUser(api, { email });
    const res = await askCode(email);
    expect(res.status).toBe(200);
    expect(await mailsAfterPause(email)).toBe(0);
    expectInvalidCode(await logIn({ email, code: '123456' }));
  });

  it('when several accounts verified the email, then 409 ambiguous_email for asking and for signing in', async () => {
    const email = uniqueEmail('shared');
    await verifiedUser(email);
    await verifiedUser(email);
    const asked = await askCode(email);
    expect(asked.status).toBe(409);
    expect(asked.body).toEqual({ code: 'ambiguous_email', detail: expect.any(String) });
    const login = await logIn({ email, code: '123456' });
    expect(login.status).toBe(409);
    expect(login.body).toMatchObject({ code: 'ambiguous_email' });
  });

  it('when the email is missing or malformed, then 400', async () => {
    const missing = await api.request('POST', '/v1/auth/email-code/request', { body: {} });
    expect(missing.status).toBe(400);
    const malformed = await askCode('not-an-email');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'invalid_email' });
  });
});

describe('POST /v1/auth/email-code/login', () => {
  it('when the code is right, then a TokenResponse and the cookie, as password login gives, and the session says how it was made', async () => {
    const user = await verifiedUser();
    const code = await signInCode(user.email);
    const res = await logIn({ email: user.email, code, device_id: DEVICE });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'token_type']);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.access_token).toMatch(/^svc_session_[0-9a-f]{16}\./);
    expect(cookieValue(res.cookies.svc_session)).toBe(res.body.access_token);
    expect(res.cookies.svc_session).toMatch(/HttpOnly/i);
    const me = await api.request<{ uid: string }>('GET', '/v1/users/me', { token: res.body.access_token });
    expect(me.body.uid).toBe(user.uid);
    const sessions = await api.request<{
      sessions: { current: boolean; method: string; device_id: string }[];
    }>('GET', '/v1/auth/sessions', { token: res.body.access_token });
    expect(sessions.body.sessions.find((entry) => entry.current)).toMatchObject({
      method: 'email_code',
      device_id: DEVICE,
    });
    // Signing in this way ends nothing else.
    expect(await status(user.token)).toBe(200);
  });

  it('when a code is used twice, then the second answers 400 invalid_code', async () => {
    const user = await verifiedUser();
    const code = await signInCode(user.email);
    expect((await logIn({ email: user.email, code })).status).toBe(200);
    expectInvalidCode(await logIn({ email: user.email, code }));
  });

  it('when 5 wrong codes are tried, then each is 400 invalid_code and even the right code is refused after', async () => {
    const user = await verifiedUser();
    const code = await signInCode(user.email);
    let wrong = code;
    for (let i = 0; i < 5; i++) {
      wrong = otherCode(wrong);
      expectInvalidCode(await logIn({ email: user.email, code: wrong }));
    }
    expectInvalidCode(await logIn({ email: user.email, code }));
  });

  it('when 4 wrong codes are tried, then the right one still signs in', async () => {
    const user = await verifiedUser();
    const code = await signInCode(user.email);
    let wrong = code;
    for (let i = 0; i < 4; i++) {
      wrong = otherCode(wrong);
      expectInvalidCode(await logIn({ email: user.email, code: wrong }));
    }
    expect((await logIn({ email: user.email, code })).status).toBe(200);
  });

  it('when a new code is asked for, then the previous one no longer works', async () => {
    const user = await verifiedUser();
    const first = await signInCode(user.email);
    const second = await signInCode(user.email);
    if (first !== second) expectInvalidCode(await logIn({ email: user.email, code: first }));
    expect((await logIn({ email: user.email, code: second })).status).toBe(200);
  });

  it('when the email is unknown, then the same 400 invalid_code as a wrong code', async () => {
    const user = await verifiedUser();
    const code = await signInCode(user.email);
    const unknown = await logIn({ email: uniqueEmail('nobody'), code });
    const wrong = await logIn({ email: user.email, code: otherCode(code) });
    expectInvalidCode(unknown);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('when a password reset code is given, then it does not sign in, and the reset code still resets', async () => {
    const user = await verifiedUser();
    const before = mailsTo(user.email);
    expect(
      (await api.request('POST', '/v1/auth/password/reset/request', { body: { email: user.email } })).status,
    ).toBe(200);
    const resetCode = await latestCode(dataDir, user.email, before + 1);
    expectInvalidCode(await logIn({ email: user.email, code: resetCode }));
    const reset = await api.request('POST', '/v1/auth/password/reset', {
      body: { email: user.email, code: resetCode, new_password: 'a-brand-new-passphrase-91' },
    });
    expect(reset.status).toBe(200);
  });

  it('when the code is not 6 digits or fields are missing, then 400', async () => {
    const user = await verifiedUser();
    expectInvalidCode(await logIn({ email: user.email, code: '12ab56' }));
    const missing = await logIn({ email: user.email });
    expect(missing.status).toBe(400);
  });

  it('when an administrator disabled the account, then the right code answers 403 account_disabled and no session, as the right password does', async () => {
    const user = await verifiedUser();
    await grant(api, user.uid, { scopes: [] });
    const code = await signInCode(user.email);
    expectInvalidCode(await logIn({ email: user.email, code: otherCode(code) }));
    const res = await logIn({ email: user.email, code });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'account_disabled', detail: expect.any(String) });
    expect(res.cookies.svc_session).toBeUndefined();
    const password = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(password.status).toBe(403);
    expect(password.body).toEqual(res.body);
    const sessions = await api.request<{ sessions: { method: string }[] }>('GET', '/v1/auth/sessions', {
      token: user.token,
    });
    expect(sessions.body.sessions.map((entry) => entry.method)).toEqual(['registration']);
  });
});

describe('sign-in by email code through GraphQL', () => {
  it('when asked and signed in through GraphQL, then the answers and the cookie are REST’s', async () => {
    const user = await verifiedUser();
    const before = mailsTo(user.email);
    const asked = await api.graphql<{ requestEmailCode: ChallengeBody }>(
      'mutation($input: EmailCodeRequestInput!) { requestEmailCode(input: $input) { challenge_id expires_at sent } }',
      { input: { email: user.email } },
    );
    expect(asked.body.errors).toBeUndefined();
    expect(asked.body.data!.requestEmailCode).toEqual({
      challenge_id: expect.any(String),
      expires_at: expect.any(String),
      sent: true,
    });
    const code = await latestCode(dataDir, user.email, before + 1);
    const wrong = await api.graphql(
      'mutation($input: EmailCodeLoginInput!) { loginWithEmailCode(input: $input) { access_token } }',
      { input: { email: user.email, code: otherCode(code) } },
    );
    expect(wrong.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_code', status: 400 });
    const done = await api.graphql<{ loginWithEmailCode: Token }>(
      'mutation($input: EmailCodeLoginInput!) { loginWithEmailCode(input: $input) { access_token token_type expires_in expires_at } }',
      { input: { email: user.email, code, device_id: null } },
    );
    expect(done.body.errors).toBeUndefined();
    expect(done.body.data!.loginWithEmailCode.token_type).toBe('Bearer');
    expect(cookieValue(done.cookies.svc_session)).toBe(done.body.data!.loginWithEmailCode.access_token);
    expect(await status(done.body.data!.loginWithEmailCode.access_token)).toBe(200);
    const unknown = await api.graphql<{ requestEmailCode: ChallengeBody }>(
      'mutation($input: EmailCodeRequestInput!) { requestEmailCode(input: $input) { sent } }',
      { input: { email: uniqueEmail('nobody') } },
    );
    expect(unknown.body.data!.requestEmailCode).toEqual({ sent: true });
  });
});

describe('an expired sign-in code', () => {
  let shortLived: TestServer;
  beforeAll(async () => {
    // The same outbox as the main server, which verifies the addresses with codes that live long enough.
    shortLived = await startTestServer({ SKEIN_DATA_DIR: dataDir, SKEIN_CODE_TTL_SECONDS: '1' });
  });
  afterAll(async () => {
    await shortLived?.close();
  });

  it('when the code has outlived SKEIN_CODE_TTL_SECONDS, then the right code answers 400 invalid_code', async () => {
    const user = await verifiedUser();
    const before = mailsTo(user.email);
    const asked = await askCode(user.email, shortLived);
    expect(asked.status).toBe(200);
    expect(Date.parse(asked.body.expires_at) - Date.now()).toBeLessThanOrEqual(1000);
    const code = await latestCode(dataDir, user.email, before + 1);
    const wait = Date.parse(asked.body.expires_at) - Date.now() + 100;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    expectInvalidCode(await logIn({ email: user.email, code }, shortLived));
  });
});

describe('limits on sign-in codes', () => {
  let limited: TestServer;
  const limitedDir = freshDataDir();
  beforeAll(async () => {
    limited = await startTestServer({
      SKEIN_DATA_DIR: limitedDir,
      SKEIN_VERIFICATION_REQUESTS_PER_HOUR: '3',
      SKEIN_CODE_FAILURES_PER_15_MIN: '3',
      SKEIN_TRUST_PROXY: 'true',
    });
  });
  afterAll(async () => {
    await limited?.close();
  });

  function expectLimited(res: ApiResponse<unknown>): void {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ code: 'rate_limited', detail: expect.any(String) });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }

  async function limitedUser(emails: string[]): Promise<TestUser> {
    const user = await registerUser(limited);
    for (const email of emails) await verifyEmail(limited, limitedDir, user.token, email);
    return user;
  }

  it('when one email is asked for too often, then 429, whether or not an account has it', async () => {
    const known = uniqueEmail();
    await limitedUser([known]);
    const unknown = uniqueEmail('nobody');
    for (const email of [known, unknown]) {
      for (let i = 0; i < 3; i++) expect((await askCode(email, limited)).status).toBe(200);
      expectLimited(await askCode(email, limited));
    }
  });

  it('when an account’s emails are asked for past its hourly budget, then the answer stays 200 but nothing more is sent', async () => {
    const first = uniqueEmail();
    const second = uniqueEmail();
    await limitedUser([first, second]);
    for (let i = 0; i < 2; i++) expect((await askCode(first, limited)).status).toBe(200);
    expect((await askCode(second, limited)).status).toBe(200);
    await latestCode(limitedDir, second, 2);
    // The account's budget (3) is spent, this email's (3) is not: same answer, no mail.
    const over = await askCode(second, limited);
    expect(over.status).toBe(200);
    expect(over.body).toEqual({
      challenge_id: expect.any(String),
      expires_at: expect.any(String),
      sent: true,
    });
    expect(await mailsAfterPause(second, limitedDir)).toBe(2);
  });

  it('when wrong codes from one address reach the limit, then 429 there even for the right code, and the owner elsewhere still signs in', async () => {
    const email = uniqueEmail();
    await limitedUser([email]);
    const code = await signInCode(email, limited, limitedDir);
    let wrong = code;
    for (let i = 0; i < 3; i++) {
      wrong = otherCode(wrong);
      expectInvalidCode(await logIn({ email, code: wrong }, limited, { 'x-forwarded-for': '198.51.100.7' }));
    }
    expectLimited(await logIn({ email, code }, limited, { 'x-forwarded-for': '198.51.100.7' }));
    expect((await logIn({ email, code }, limited, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
  });
});
