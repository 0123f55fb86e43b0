// Password reset: POST /v1/auth/password/reset/request and POST /v1/auth/password/reset (no
// authentication), over REST and GraphQL. Reset codes are sent after the answer, so tests wait for
// the outbox line.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Token } from '../support/api-types.js';
import { createManaged, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';
import {
  freshDataDir,
  latestCode,
  otherCode,
  outboxLines,
  uniqueEmail,
  verifyEmail,
  waitForOutbox,
  type ChallengeBody,
} from './contact-helpers.js';

let api: TestServer;
const dataDir = freshDataDir();
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir });
});
afterAll(async () => {
  await api.close();
});

const NEW_PASSWORD = 'a-brand-new-passphrase-77';

async function verifiedUser(email = uniqueEmail()): Promise<TestUser & { email: string }> {
  const user = await registerUser(api);
  await verifyEmail(api, dataDir, user.token, email);
  return { ...user, email };
}

const askReset = (body: Record<string, unknown>) =>
  api.request<ChallengeBody>('POST', '/v1/auth/password/reset/request', { body });
const reset = (body: Record<string, unknown>) =>
  api.request<Token>('POST', '/v1/auth/password/reset', { body });

/** Asks for a reset code and answers it once it is in the outbox. */
async function resetCode(body: Record<string, unknown>, to: string): Promise<string> {
  const before = outboxLines(dataDir).filter((line) => line.to === to).length;
  const res = await askReset(body);
  expect(res.status).toBe(200);
  return latestCode(dataDir, to, before + 1);
}

/** Waits a moment for a code that should not come, then says how many lines went to `to`. */
async function linesAfterPause(to: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  return outboxLines(dataDir).filter((line) => line.to === to).length;
}

const status = async (token: string) => (await api.request('GET', '/v1/users/me', { token })).status;

describe('POST /v1/auth/password/reset/request', () => {
  it('when the account has verified the email, then a ChallengeResponse and the code by email only', async () => {
    const user = await verifiedUser();
    const before = outboxLines(dataDir).filter((line) => line.to === user.email).length;
    const res = await askReset({ email: user.email });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      challenge_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      expires_at: expect.any(String),
      sent: true,
    });
    const lines = await waitForOutbox(dataDir, user.email, before + 1);
    const line = lines[lines.length - 1]!;
    expect(line).toMatchObject({ kind: 'email', subject: expect.stringMatching(/reset/i) });
    expect(line.body).toContain(line.code!);
    expect(JSON.stringify(res.body)).not.toContain(line.code!);
  });

  it('when no such account exists, then the same 200 shape and nothing is sent', async () => {
    const email = uniqueEmail('nobody');
    const byEmail = await askReset({ email });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toEqual({
      challenge_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      expires_at: expect.any(String),
      sent: true,
    });
    const byTag = await askReset({ user_tag: 'no-such-user-tag-x' });
    expect(byTag.status).toBe(200);
    expect(Object.keys(byTag.body).sort()).toEqual(['challenge_id', 'expires_at', 'sent']);
    expect(await linesAfterPause(email)).toBe(0);
  });

  it('when the account’s only email is unverified, then 200 and no code goes to that address', async () => {
    const email = uniqueEmail('unverified');
    const user = await registerUser(api, { email });
    expect((await askReset({ email })).status).toBe(200);
    expect((await askReset({ user_tag: user.tag })).status).toBe(200);
    expect(await linesAfterPause(email)).toBe(0);
  });

  it('when the account is managed, then it is treated as unknown', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const res = await askReset({ user_tag: bot.user_tag });
    expect(res.status).toBe(200);
    const after = await reset({ user_tag: bot.user_tag, code: '123456', new_password: NEW_PASSWORD });
    expect(after.status).toBe(400);
    expect(after.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
  });

  it('when neither email nor user_tag is given, then 400 missing_field; a malformed email 400 invalid_email', async () => {
    const neither = await askReset({});
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ code: 'missing_field', detail: expect.any(String) });
    const malformed = await askReset({ email: 'not-an-email' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 'invalid_email', detail: expect.any(String) });
  });

  it('when several accounts verified the email, then 409 ambiguous_email, and user_tag says which', async () => {
    const email = uniqueEmail('shared');
    const first = await verifiedUser(email);
    const second = await verifiedUser(email);
    const ambiguous = await askReset({ email });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body).toEqual({ code: 'ambiguous_email', detail: expect.any(String) });

    const code = await resetCode({ email, user_tag: second.tag }, email);
    const completeAmbiguous = await reset({ email, code, new_password: NEW_PASSWORD });
    expect(completeAmbiguous.status).toBe(409);
    expect(completeAmbiguous.body).toEqual({ code: 'ambiguous_email', detail: expect.any(String) });
    const done = await reset({ email, user_tag: second.tag, code, new_password: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(await status(second.token)).toBe(401);
    expect(await status(first.token)).toBe(200);
  });

  it('when another account only claims the email unverified, then the reset by email is not ambiguous', async () => {
    const owner = await verifiedUser();
    await registerUser(api, { email: owner.email });
    const code = await resetCode({ email: owner.email }, owner.email);
    expect((await reset({ email: owner.email, code, new_password: NEW_PASSWORD })).status).toBe(200);
  });
});

describe('POST /v1/auth/password/reset', () => {
  it('when the code is right, then signed in with a cookie, every other session ends, the new password works', async () => {
    const user = await verifiedUser();
    const second = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(second.status).toBe(200);
    const code = await resetCode({ email: user.email }, user.email);

    const res = await reset({ email: user.email, code, new_password: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^svc_session_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      expires_at: expect.any(String),
    });
    expect(cookieValue(res.cookies.svc_session)).toBe(res.body.access_token);
    expect(await status(res.body.access_token)).toBe(200);
    expect(await status(user.token)).toBe(401);
    expect(await status(second.body.access_token)).toBe(401);

    const oldLogin = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(oldLogin.status).toBe(401);
    const newLogin = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: NEW_PASSWORD },
    });
    expect(newLogin.status).toBe(200);
  });

  it('when asked by user_tag, then the code goes to the latest verified email and the tag completes it', async () => {
    const user = await verifiedUser();
    const latest = uniqueEmail('latest');
    await verifyEmail(api, dataDir, user.token, latest);
    const code = await resetCode({ user_tag: `@${user.tag.toUpperCase()}` }, latest);
    const res = await reset({ user_tag: user.tag, code, new_password: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(
      outboxLines(dataDir).filter((line) => line.to === user.email && /reset/i.test(line.subject ?? '')),
    ).toEqual([]);
  });

  it('when the code is wrong, then 400 invalid_code and the password is unchanged', async () => {
    const user = await verifiedUser();
    const code = await resetCode({ email: user.email }, user.email);
    const wrong = await reset({ email: user.email, code: otherCode(code), new_password: NEW_PASSWORD });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
    expect(await status(user.token)).toBe(200);
    expect((await reset({ email: user.email, code, new_password: NEW_PASSWORD })).status).toBe(200);
  });

  it('when the new password is weak, then 400 weak_password and the code is still good', async () => {
    const user = await verifiedUser();
    const code = await resetCode({ email: user.email }, user.email);
    for (const weak of ['short', 'password123']) {
      const res = await reset({ email: user.email, code, new_password: weak });
      expect({ weak, status: res.status, body: res.body }).toEqual({
        weak,
        status: 400,
        body: { code: 'weak_password', detail: expect.any(String) },
      });
    }
    expect((await reset({ email: user.email, code, new_password: NEW_PASSWORD })).status).toBe(200);
  });

  // Security review 2026-11-23 #16: bcrypt ignores what follows the first 72 bytes.
  it('when the new password is over 72 bytes in UTF-8, then 422 on new_password and the code is still good', async () => {
    const user = await verifiedUser();
    const code = await resetCode({ email: user.email }, user.email);
    const res = await reset({ email: user.email, code, new_password: 'ü'.repeat(37) });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['body', 'new_password'] }] });
    expect((await reset({ email: user.email, code, new_password: NEW_PASSWORD })).status).toBe(200);
  });

  it('when a code is used twice, then the second answers 400 invalid_code', async () => {
    const user = await verifiedUser();
    const code = await resetCode({ email: user.email }, user.email);
    expect((await reset({ email: user.email, code, new_password: NEW_PASSWORD })).status).toBe(200);
    const again = await reset({ email: user.email, code, new_password: `${NEW_PASSWORD}-2` });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
  });

  it('when 5 wrong codes are tried, then even the right code is refused', async () => {
    const user = await verifiedUser();
    const code = await resetCode({ email: user.email }, user.email);
    let wrong = code;
    for (let attempt = 1; attempt <= 5; attempt++) {
      wrong = otherCode(wrong);
      const res = await reset({ email: user.email, code: wrong, new_password: NEW_PASSWORD });
      expect({ attempt, status: res.status }).toEqual({ attempt, status: 400 });
    }
    expect((await reset({ email: user.email, code, new_password: NEW_PASSWORD })).status).toBe(400);
    expect(await status(user.token)).toBe(200);
  });

  it('when a new reset code is asked for, then the previous one no longer works', async () => {
    const user = await verifiedUser();
    const first = await resetCode({ email: user.email }, user.email);
    let second = await resetCode({ email: user.email }, user.email);
    while (second === first) second = await resetCode({ email: user.email }, user.email);
    expect((await reset({ email: user.email, code: first, new_password: NEW_PASSWORD })).status).toBe(400);
    expect((await reset({ email: user.email, code: second, new_password: NEW_PASSWORD })).status).toBe(200);
  });

  it('when the account is unknown or nothing was asked for, then 400 invalid_code', async () => {
    const unknown = await reset({ email: uniqueEmail('ghost'), code: '123456', new_password: NEW_PASSWORD });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
    const user = await verifiedUser();
    const never = await reset({ email: user.email, code: '123456', new_password: NEW_PASSWORD });
    expect(never.status).toBe(400);
    expect(never.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
  });

  it('when fields are missing, then 400 missing_field', async () => {
    for (const body of [
      { email: uniqueEmail(), new_password: NEW_PASSWORD },
      { email: uniqueEmail(), code: '123456' },
      { code: '123456', new_password: NEW_PASSWORD },
    ]) {
      const res = await reset(body);
      expect({ body, status: res.status, code: (res.body as unknown as { code: string }).code }).toEqual({
        body,
        status: 400,
        code: 'missing_field',
      });
    }
  });
});

describe('GraphQL password reset', () => {
  it('when reset through GraphQL, then a TokenResponse and the svc_session cookie', async () => {
    const user = await verifiedUser();
    const before = outboxLines(dataDir).filter((line) => line.to === user.email).length;
    const asked = await api.graphql<{ requestPasswordReset: ChallengeBody }>(
      'mutation($input: PasswordResetRequestInput!) { requestPasswordReset(input: $input) { challenge_id expires_at sent } }',
      { input: { user_tag: user.tag } },
    );
    expect(asked.body.errors).toBeUndefined();
    expect(asked.body.data!.requestPasswordReset.sent).toBe(true);
    const code = await latestCode(dataDir, user.email, before + 1);
    const done = await api.graphql<{ resetPassword: Token }>(
      'mutation($input: PasswordResetInput!) { resetPassword(input: $input) { access_token token_type expires_in expires_at } }',
      { input: { user_tag: user.tag, code, new_password: NEW_PASSWORD } },
    );
    expect(done.body.errors).toBeUndefined();
    expect(done.body.data!.resetPassword.token_type).toBe('Bearer');
    expect(cookieValue(done.cookies.svc_session)).toBe(done.body.data!.resetPassword.access_token);
    expect(await status(user.token)).toBe(401);
    const weak = await api.graphql(
      'mutation($input: PasswordResetInput!) { resetPassword(input: $input) { access_token } }',
      { input: { user_tag: user.tag, code, new_password: 'short' } },
    );
    expect(weak.body.errors?.[0]?.extensions).toMatchObject({ code: 'weak_password', status: 400 });
  });
});
