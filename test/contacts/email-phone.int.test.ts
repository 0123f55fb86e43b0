// Email and phone verification: POST /v1/auth/contacts/{email,phone}/request and .../verify, over
// REST and GraphQL, with the `log` transport (codes read from $SKEIN_DATA_DIR/outbox.jsonl).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Token } from '../support/api-types.js';
import {
  createKey,
  createManaged,
  grant,
  registerUser,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  freshDataDir,
  latestCode,
  otherCode,
  outboxLines,
  uniqueEmail,
  uniquePhone,
  verifyEmail,
  waitForOutbox,
  type ChallengeBody,
  type VerificationBody,
} from './contact-helpers.js';

let api: TestServer;
const dataDir = freshDataDir();
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir });
});
afterAll(async () => {
  await api.close();
});

interface Me {
  scopes: string[];
  contacts: { kind: string; value: string; verified_at: string | null }[];
}

const me = async (token: string) => (await api.request<Me>('GET', '/v1/users/me', { token })).body;
const sessionPermissions = async (token: string) =>
  (await api.request<{ permissions: string[] }>('GET', '/v1/auth/session', { token })).body.permissions;

const requestEmail = (token: string, email: string) =>
  api.request<ChallengeBody>('POST', '/v1/auth/contacts/email/request', { token, body: { email } });
const verifyEmailCode = (token: string, email: string, code: string) =>
  api.request<VerificationBody>('POST', '/v1/auth/contacts/email/verify', { token, body: { email, code } });

/** Asks for a code for `email` and answers it (waiting for the new outbox line). */
async function askCode(user: TestUser, email: string): Promise<string> {
  const before = outboxLines(dataDir).filter((line) => line.to === email).length;
  const res = await requestEmail(user.token, email);
  expect(res.status).toBe(200);
  return latestCode(dataDir, email, before + 1);
}

async function delegatedBotToken(): Promise<string> {
  const manager = await registerWriter(api);
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expect(delegated.status).toBe(200);
  return delegated.body.access_token;
}

describe('POST /v1/auth/contacts/email/request', () => {
  it('when a user asks for a code, then a ChallengeResponse without the code, and one outbox line with it', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const res = await requestEmail(user.token, `  ${email.toUpperCase()} `);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      challenge_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      sent: true,
    });
    const minutes = (Date.parse(res.body.expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
    const [line, ...more] = await waitForOutbox(dataDir, email);
    expect(more).toEqual([]);
    expect(line).toEqual({
      to: email,
      kind: 'email',
      subject: expect.any(String),
      body: expect.stringContaining(line!.code!),
      code: expect.stringMatching(/^\d{6}$/),
    });
    expect(Object.keys(line!)).toEqual(['to', 'kind', 'subject', 'body', 'code']);
    expect(JSON.stringify(res.body)).not.toContain(line!.code!);
  });

  it('when the route answers, then it sends the RateLimit headers of the auth endpoints', async () => {
    const user = await registerUser(api);
    const res = await requestEmail(user.token, uniqueEmail());
    expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('when the email is malformed, then 400 invalid_email and nothing is sent', async () => {
    const user = await registerUser(api);
    const before = outboxLines(dataDir).length;
    for (const email of ['not-an-email', 'a@', '@example.test', '']) {
      const res = await requestEmail(user.token, email);
      expect({ email, status: res.status, body: res.body }).toEqual({
        email,
        status: 400,
        body: { code: 'invalid_email', detail: expect.any(String) },
      });
    }
    expect(outboxLines(dataDir).length).toBe(before);
  });

  it('when the email is missing, then 400 missing_field; when unauthenticated, then 401', async () => {
    const user = await registerUser(api);
    const missing = await api.request('POST', '/v1/auth/contacts/email/request', {
      token: user.token,
      body: {},
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'missing_field', detail: expect.any(String) });
    const anonymous = await api.request('POST', '/v1/auth/contacts/email/request', {
      body: { email: uniqueEmail() },
    });
    expect(anonymous.status).toBe(401);
  });

  it('when a managed user asks (through its manager’s delegated session), then 403 managed_user_forbidden', async () => {
    const botToken = await delegatedBotToken();
    const email = await requestEmail(botToken, uniqueEmail());
    expect(email.status).toBe(403);
    expect(email.body).toEqual({ code: 'managed_user_forbidden', detail: expect.any(String) });
    const phone = await api.request('POST', '/v1/auth/contacts/phone/request', {
      token: botToken,
      body: { phone: uniquePhone() },
    });
    expect(phone.status).toBe(403);
    const verify = await verifyEmailCode(botToken, uniqueEmail(), '123456');
    expect(verify.status).toBe(403);
  });
});

describe('POST /v1/auth/contacts/email/verify', () => {
  it('when a read-only user verifies its email, then it can post with the same session token', async () => {
    const user = await registerUser(api);
    expect((await me(user.token)).scopes).toEqual(['messages.read']);
    const denied = await api.request('POST', '/v1/messages', {
      token: user.token,
      body: { content: 'early' },
    });
    expect(denied.status).toBe(403);

    const email = uniqueEmail();
    const code = await askCode(user, email);
    const res = await verifyEmailCode(user.token, email, code);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ verified: true, kind: 'email', value: email });

    const profile = await me(user.token);
    expect([...profile.scopes].sort()).toEqual(['messages.read', 'messages.write', 'realtime.connect']);
    expect(profile.contacts).toEqual([{ kind: 'email', value: email, verified_at: expect.any(String) }]);
    expect([...(await sessionPermissions(user.token))].sort()).toEqual([
      'messages.read',
      'messages.write',
      'realtime.connect',
    ]);
    const posted = await api.request<{ ok: boolean }[]>('POST', '/v1/messages', {
      token: user.token,
      body: { content: 'now I can write' },
    });
    expect(posted.status).toBe(200);
    expect(posted.body[0]!.ok).toBe(true);
  });

  it('when the email was given at registration, then verifying it marks that same contact verified', async () => {
    const email = uniqueEmail();
    const user = await registerUser(api, { email });
    expect((await me(user.token)).contacts).toEqual([{ kind: 'email', value: email, verified_at: null }]);
    await verifyEmail(api, dataDir, user.token, email);
    expect((await me(user.token)).contacts).toEqual([
      { kind: 'email', value: email, verified_at: expect.any(String) },
    ]);
  });

  it('when the code is wrong, then 400 invalid_code and the right code still works', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const code = await askCode(user, email);
    const wrong = await verifyEmailCode(user.token, email, otherCode(code));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
    expect((await me(user.token)).scopes).toEqual(['messages.read']);
    expect((await verifyEmailCode(user.token, email, code)).status).toBe(200);
  });

  it('when a code is used twice, then the second answers 404 no_active_challenge', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const code = await askCode(user, email);
    expect((await verifyEmailCode(user.token, email, code)).status).toBe(200);
    const again = await verifyEmailCode(user.token, email, code);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 'no_active_challenge', detail: expect.any(String) });
  });

  it('when the right code is sent several times at once, then exactly one verification succeeds', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const code = await askCode(user, email);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => verifyEmailCode(user.token, email, code)),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 404, 404, 404, 404]);
  });

  it('when a new code is asked for, then it replaces the previous one', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const first = await askCode(user, email);
    let second = await askCode(user, email);
    // Two draws can be equal (one in a million); ask again so the test says what it means.
    while (second === first) second = await askCode(user, email);
    expect((await verifyEmailCode(user.token, email, first)).status).toBe(400);
    expect((await verifyEmailCode(user.token, email, second)).status).toBe(200);
  });

  it('when 5 wrong codes are tried, then the challenge is dead and even the right code answers 404', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const code = await askCode(user, email);
    let wrong = code;
    for (let attempt = 1; attempt <= 5; attempt++) {
      wrong = otherCode(wrong);
      const res = await verifyEmailCode(user.token, email, wrong);
      expect({ attempt, status: res.status }).toEqual({ attempt, status: 400 });
    }
    const right = await verifyEmailCode(user.token, email, code);
    expect(right.status).toBe(404);
    expect(right.body).toEqual({ code: 'no_active_challenge', detail: expect.any(String) });
    expect((await me(user.token)).contacts).toEqual([]);
  });

  it('when 4 wrong codes are tried, then the 5th try with the right code still verifies', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const code = await askCode(user, email);
    let wrong = code;
    for (let attempt = 1; attempt <= 4; attempt++) {
      wrong = otherCode(wrong);
      expect((await verifyEmailCode(user.token, email, wrong)).status).toBe(400);
    }
    expect((await verifyEmailCode(user.token, email, code)).status).toBe(200);
  });

  it('when no code was asked for, then 404; a malformed code 400 invalid_code; a missing one 400 missing_field', async () => {
    const user = await registerUser(api);
    const never = await verifyEmailCode(user.token, uniqueEmail(), '123456');
    expect(never.status).toBe(404);
    expect(never.body).toEqual({ code: 'no_active_challenge', detail: expect.any(String) });
    const malformed = await verifyEmailCode(user.token, uniqueEmail(), '12a456');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
    const missing = await api.request('POST', '/v1/auth/contacts/email/verify', {
      token: user.token,
      body: { email: uniqueEmail() },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'missing_field', detail: expect.any(String) });
    const badEmail = await verifyEmailCode(user.token, 'nope', '123456');
    expect(badEmail.status).toBe(400);
    expect(badEmail.body).toEqual({ code: 'invalid_email', detail: expect.any(String) });
  });

  it('when another user’s code is tried, then it does not verify the email for the caller', async () => {
    const owner = await registerUser(api);
    const other = await registerUser(api);
    const email = uniqueEmail();
    const code = await askCode(owner, email);
    const stolen = await verifyEmailCode(other.token, email, code);
    expect(stolen.status).toBe(404);
    expect((await me(other.token)).contacts).toEqual([]);
    expect((await verifyEmailCode(owner.token, email, code)).status).toBe(200);
  });

  it('when a session is restricted (minted from a capped key), then it keeps its frozen permissions', async () => {
    const user = await registerUser(api);
    await grant(api, user.uid, { has_api_access: true });
    const key = await createKey(api, user.token, { scopes_cap: 'messages.read messages.write' });
    const exchanged = await api.request<Token>('POST', '/v1/auth/token', { apiKey: key.key });
    expect(exchanged.status).toBe(200);
    const capped = exchanged.body.access_token;
    expect(await sessionPermissions(capped)).toEqual(['messages.read']);

    await verifyEmail(api, dataDir, user.token, uniqueEmail());
    expect(await sessionPermissions(capped)).toEqual(['messages.read']);
    expect([...(await sessionPermissions(user.token))].sort()).toEqual([
      'messages.read',
      'messages.write',
      'realtime.connect',
    ]);
    // A direct key request is grant ∩ cap, read live, so it can write now.
    const direct = await api.request<{ ok: boolean }[]>('POST', '/v1/messages', {
      apiKey: key.key,
      body: { content: 'with the key' },
    });
    expect(direct.status).toBe(200);
  });

  it('when an administrator took messages.write away, then verifying another address does not give it back', async () => {
    const user = await registerUser(api);
    await verifyEmail(api, dataDir, user.token, uniqueEmail());
    await grant(api, user.uid, { scopes: ['messages.read'] });
    await verifyEmail(api, dataDir, user.token, uniqueEmail());
    expect((await me(user.token)).scopes).toEqual(['messages.read']);
    expect((await me(user.token)).contacts.filter((c) => c.verified_at !== null)).toHaveLength(2);
  });

  it('when an administrator banned an account before it verified anything, then its first verification gives it nothing (security finding #4)', async () => {
    const user = await registerUser(api);
    await grant(api, user.uid, { scopes: [] });
    await verifyEmail(api, dataDir, user.token, uniqueEmail());
    expect((await me(user.token)).scopes).toEqual([]);
    const post = await api.request('POST', '/v1/messages', {
      token: user.token,
      body: { content: 'banned' },
    });
    expect(post.status).toBe(403);
  });
});

describe('POST /v1/auth/contacts/phone/request and /verify', () => {
  it('when a user verifies a phone, then the code came by SMS and the account can write', async () => {
    const user = await registerUser(api);
    const phone = uniquePhone();
    const display = `${phone.slice(0, 2)} (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
    const before = outboxLines(dataDir).filter((line) => line.to === phone).length;
    const asked = await api.request<ChallengeBody>('POST', '/v1/auth/contacts/phone/request', {
      token: user.token,
      body: { phone: display },
    });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({
      challenge_id: expect.any(String),
      expires_at: expect.any(String),
      sent: true,
    });
    const lines = await waitForOutbox(dataDir, phone, before + 1);
    const line = lines[lines.length - 1]!;
    expect(line).toEqual({
      to: phone,
      kind: 'sms',
      subject: null,
      body: expect.stringContaining(line.code!),
      code: expect.stringMatching(/^\d{6}$/),
    });

    const wrong = await api.request('POST', '/v1/auth/contacts/phone/verify', {
      token: user.token,
      body: { phone, code: otherCode(line.code!) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
    const res = await api.request<VerificationBody>('POST', '/v1/auth/contacts/phone/verify', {
      token: user.token,
      body: { phone: display, code: line.code },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ verified: true, kind: 'phone', value: phone });
    const profile = await me(user.token);
    expect(profile.scopes).toContain('messages.write');
    expect(profile.contacts).toEqual([{ kind: 'phone', value: phone, verified_at: expect.any(String) }]);
  });

  it('when the number is not E.164 or not a real number, then 400 invalid_phone', async () => {
    const user = await registerUser(api);
    for (const phone of ['2125550123', '+0123', '+1212555012345678', 'phone', '+99912345']) {
      const res = await api.request('POST', '/v1/auth/contacts/phone/request', {
        token: user.token,
        body: { phone },
      });
      expect({ phone, status: res.status, body: res.body }).toEqual({
        phone,
        status: 400,
        body: { code: 'invalid_phone', detail: expect.any(String) },
      });
    }
  });

  it('when parameters are missing or nothing was asked for, then 400 missing_field and 404', async () => {
    const user = await registerUser(api);
    const missing = await api.request('POST', '/v1/auth/contacts/phone/verify', {
      token: user.token,
      body: { code: '123456' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'missing_field', detail: expect.any(String) });
    const never = await api.request('POST', '/v1/auth/contacts/phone/verify', {
      token: user.token,
      body: { phone: uniquePhone(), code: '123456' },
    });
    expect(never.status).toBe(404);
  });
});

describe('GraphQL contact mutations', () => {
  it('when a user verifies an email through GraphQL, then the same answers as REST and the grant', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const before = outboxLines(dataDir).filter((line) => line.to === email).length;
    const asked = await api.graphql<{ requestEmailVerification: ChallengeBody }>(
      'mutation($input: EmailChallengeInput!) { requestEmailVerification(input: $input) { challenge_id expires_at sent } }',
      { input: { email } },
      { token: user.token },
    );
    expect(asked.body.errors).toBeUndefined();
    expect(asked.body.data!.requestEmailVerification).toEqual({
      challenge_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      expires_at: expect.any(String),
      sent: true,
    });
    const code = await latestCode(dataDir, email, before + 1);
    const verifyQuery =
      'mutation($input: EmailVerifyInput!) { verifyEmail(input: $input) { verified kind value secret } }';
    const wrong = await api.graphql(
      verifyQuery,
      { input: { email, code: otherCode(code) } },
      { token: user.token },
    );
    expect(wrong.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_code', status: 400 });
    const verified = await api.graphql<{ verifyEmail: VerificationBody }>(
      verifyQuery,
      { input: { email, code } },
      { token: user.token },
    );
    expect(verified.body.errors).toBeUndefined();
    expect(verified.body.data!.verifyEmail).toEqual({
      verified: true,
      kind: 'email',
      value: email,
      secret: null,
    });
    expect((await me(user.token)).scopes).toContain('messages.write');
  });

  it('when a phone is verified through GraphQL, then it is stored in E.164', async () => {
    const user = await registerUser(api);
    const phone = uniquePhone();
    const before = outboxLines(dataDir).filter((line) => line.to === phone).length;
    const asked = await api.graphql(
      'mutation($input: PhoneChallengeInput!) { requestPhoneVerification(input: $input) { sent } }',
      { input: { phone } },
      { token: user.token },
    );
    expect(asked.body.errors).toBeUndefined();
    const code = await latestCode(dataDir, phone, before + 1);
    const verified = await api.graphql<{ verifyPhone: VerificationBody }>(
      'mutation($input: PhoneVerifyInput!) { verifyPhone(input: $input) { verified kind value } }',
      { input: { phone, code } },
      { token: user.token },
    );
    expect(verified.body.data!.verifyPhone).toEqual({ verified: true, kind: 'phone', value: phone });
  });

  it('when a managed user or an anonymous caller uses the mutations, then 403 and 401', async () => {
    const botToken = await delegatedBotToken();
    const query =
      'mutation($input: EmailChallengeInput!) { requestEmailVerification(input: $input) { sent } }';
    const managed = await api.graphql(query, { input: { email: uniqueEmail() } }, { token: botToken });
    expect(managed.body.errors?.[0]?.extensions).toMatchObject({
      code: 'managed_user_forbidden',
      status: 403,
    });
    const anonymous = await api.graphql(query, { input: { email: uniqueEmail() } });
    expect(anonymous.body.errors?.[0]?.extensions).toMatchObject({ status: 401 });
  });
});

describe('OpenAPI document', () => {
  it('when it is read, then every contact and reset route is there with its error statuses', async () => {
    const doc = await api.request<{
      paths: Record<string, { post?: { responses: Record<string, unknown> } }>;
    }>('GET', '/v1/openapi.json');
    const expected: Record<string, string[]> = {
      '/v1/auth/contacts/email/request': ['400', '401', '403', '429', '500'],
      '/v1/auth/contacts/email/verify': ['400', '401', '403', '404', '429'],
      '/v1/auth/contacts/phone/request': ['400', '401', '403', '429', '500'],
      '/v1/auth/contacts/phone/verify': ['400', '401', '403', '404', '429'],
      '/v1/auth/contacts/endpoint/request': ['400', '401', '429'],
      '/v1/auth/contacts/endpoint/verify': ['400', '401', '404', '429'],
      '/v1/auth/password/reset/request': ['400', '409', '429'],
      '/v1/auth/password/reset': ['400', '409', '429'],
    };
    for (const [path, statuses] of Object.entries(expected)) {
      const responses = Object.keys(doc.body.paths[path]?.post?.responses ?? {});
      expect({ path, documented: statuses.every((status) => responses.includes(status)) }).toEqual({
        path,
        documented: true,
      });
      expect(responses).toContain('200');
    }
  });
});
