// Passwords: POST /v1/auth/register, POST /v1/auth/password/login, POST /v1/auth/password/change.
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcrypt';
import { freshDataDir, verifyEmail } from '../contacts/contact-helpers.js';
import {
  STRONG_PASSWORD,
  createManaged,
  registerUser,
  registerWriter,
  uniqueTag,
} from '../support/factories.js';
import { cookieValue, startTestServer, type TestServer } from '../support/test-server.js';
import type { Token } from '../support/api-types.js';

let api: TestServer;
// A data directory of this file's own, so the verification codes in its outbox are its own.
const dataDir = freshDataDir();
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir });
});
afterAll(async () => {
  await api.close();
});

interface Me {
  uid: string;
  user_tag: string;
  contacts: { kind: string; value: string; verified_at: string | null }[];
}

const TOKEN = /^svc_session_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/;

function expectTokenResponse(res: { status: number; body: Token; cookies: Record<string, string> }): void {
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    access_token: expect.stringMatching(TOKEN),
    token_type: 'Bearer',
    expires_in: 30 * 24 * 3600,
    expires_at: expect.any(String),
  });
  expect(cookieValue(res.cookies.svc_session)).toBe(res.body.access_token);
  expect(res.cookies.svc_session).toMatch(/HttpOnly/);
}

const uniqueEmail = () => `${uniqueTag('mail')}@example.test`;

/** The raw status and body bytes of a login attempt, to compare answers byte for byte. */
async function rawLogin(body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const res = await fetch(`${api.url}/v1/auth/password/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe('POST /v1/auth/register', () => {
  it('when the tag and password are good, then a TokenResponse with the session cookie, signed in', async () => {
    const tag = uniqueTag();
    const res = await api.request<Token>('POST', '/v1/auth/register', {
      body: { user_tag: tag, password: STRONG_PASSWORD, display_name: 'Ada' },
    });
    expectTokenResponse(res);
    const me = await api.request<Me & { display_name: string }>('GET', '/v1/users/me', {
      token: res.body.access_token,
    });
    expect(me.status).toBe(200);
    expect(me.body.user_tag).toBe(tag);
    expect(me.body.display_name).toBe('Ada');
    expect(me.body.contacts).toEqual([]);
  });

  it('when the tag is taken in another letter case, then 409 user_tag_taken', async () => {
    const tag = uniqueTag('Mixed');
    await registerUser(api, { tag });
    const res = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: tag.toUpperCase(), password: STRONG_PASSWORD },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'user_tag_taken' });
  });

  it('when the tag is malformed, too short or too long, then 422 on user_tag', async () => {
    for (const tag of ['-bad', 'a', 'a'.repeat(33), 'has space', 'émile']) {
      const res = await api.request('POST', '/v1/auth/register', {
        body: { user_tag: tag, password: STRONG_PASSWORD },
      });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        code: 'validation_error',
        detail: [{ loc: ['body', 'user_tag'], msg: expect.any(String), type: expect.any(String) }],
      });
    }
  });

  it('when the tag is at the bounds (2 and 32 characters), then it is accepted', async () => {
    const short = uniqueTag().slice(0, 2);
    const long = `${uniqueTag('z')}${'x'.repeat(21)}`;
    expect(long).toHaveLength(32);
    const res = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: long, password: STRONG_PASSWORD },
    });
    expect(res.status).toBe(200);
    // A 2-character tag may already be taken by another run; it must not be refused as invalid.
    const two = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: short, password: STRONG_PASSWORD },
    });
    expect([200, 409]).toContain(two.status);
  });

  it('when the password is shorter than 10 characters, then 400 weak_password and no account', async () => {
    const tag = uniqueTag();
    const res = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: tag, password: 'Zq9!xv#2w' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'weak_password' });
    const retry = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: tag, password: STRONG_PASSWORD },
    });
    expect(retry.status).toBe(200);
  });

  it('when the password is long enough but common, then 400 weak_password', async () => {
    for (const password of ['password1234', '1234567890', 'QWERTYUIOP']) {
      const res = await api.request('POST', '/v1/auth/register', {
        body: { user_tag: uniqueTag(), password },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'weak_password' });
    }
  });

  it('when an email is given, then it is kept as an unverified contact', async () => {
    const email = uniqueEmail();
    const res = await api.request<Token>('POST', '/v1/auth/register', {
      body: { user_tag: uniqueTag(), password: STRONG_PASSWORD, email },
    });
    expect(res.status).toBe(200);
    const me = await api.request<Me & { scopes: string[] }>('GET', '/v1/users/me', {
      token: res.body.access_token,
    });
    expect(me.body.contacts).toEqual([{ kind: 'email', value: email, verified_at: null }]);
    // An unverified email does not unlock writing.
    expect(me.body.scopes).toEqual(['messages.read']);
  });

  it('when the email is malformed, then 422 on email', async () => {
    const res = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: uniqueTag(), password: STRONG_PASSWORD, email: 'not-an-email' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['body', 'email'] }] });
  });
});

/** A password of exactly `bytes` bytes in UTF-8, strong by the other rules. */
function passwordOfBytes(bytes: number): string {
  return `${STRONG_PASSWORD}${'x'.repeat(bytes - STRONG_PASSWORD.length)}`;
}

// Security review 2026-11-23 #16: bcrypt reads only the first 72 bytes, and a 97-character password
// with a different tail signed in. Longer passwords are refused on every password field.
describe('passwords over 72 bytes', () => {
  it('when registering with a password over 72 bytes in UTF-8, then 422 on password and no account', async () => {
    const tag = uniqueTag();
    // 73 ASCII bytes, and 37 two-byte characters (74 bytes, only 37 characters).
    for (const password of [passwordOfBytes(73), 'é'.repeat(37)]) {
      const res = await api.request('POST', '/v1/auth/register', { body: { user_tag: tag, password } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        code: 'validation_error',
        detail: [{ loc: ['body', 'password'], msg: expect.stringContaining('72 bytes'), type: 'custom' }],
      });
    }
    const retry = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: tag, password: STRONG_PASSWORD },
    });
    expect(retry.status).toBe(200);
  });

  it('when the password is exactly 72 bytes, then it works, and the same password with more after it does not sign in', async () => {
    for (const password of [passwordOfBytes(72), 'é'.repeat(36)]) {
      const user = await registerUser(api, { password });
      const longer = await api.request('POST', '/v1/auth/password/login', {
        body: { user_tag: user.tag, password: `${password}-and-a-different-tail` },
      });
      expect(longer.status).toBe(422);
      expect(longer.body).toMatchObject({
        code: 'validation_error',
        detail: [{ loc: ['body', 'password'] }],
      });
      const exact = await api.request('POST', '/v1/auth/password/login', {
        body: { user_tag: user.tag, password },
      });
      expect(exact.status).toBe(200);
    }
  });

  it('when the new password of a change is over 72 bytes, then 422 on new_password and the old password still works', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/password/change', {
      token: user.token,
      body: { current_password: user.password, new_password: passwordOfBytes(73) },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['body', 'new_password'] }] });
    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(login.status).toBe(200);
  });
});

describe('POST /v1/auth/password/login', () => {
  it('when the user_tag and password match, then a TokenResponse for that user', async () => {
    const user = await registerUser(api);
    const res = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expectTokenResponse(res);
    const me = await api.request<Me>('GET', '/v1/users/me', { token: res.body.access_token });
    expect(me.body.uid).toBe(user.uid);
  });

  it('when the tag is written @TAG in another case, then it signs in the same user', async () => {
    const user = await registerUser(api, { tag: uniqueTag('Case') });
    const res = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: `@${user.tag.toUpperCase()}`, password: user.password },
    });
    expect(res.status).toBe(200);
    const me = await api.request<Me>('GET', '/v1/users/me', { token: res.body.access_token });
    expect(me.body.uid).toBe(user.uid);
  });

  it('when the email is verified and the password matches, then it signs in the user holding that email', async () => {
    const email = uniqueEmail();
    const user = await registerUser(api, { email });
    await verifyEmail(api, dataDir, user.token, email);
    const res = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { email, password: user.password },
    });
    expectTokenResponse(res);
    const me = await api.request<Me>('GET', '/v1/users/me', { token: res.body.access_token });
    expect(me.body.uid).toBe(user.uid);
  });

  it('when the password is wrong or the user does not exist, then the same 401 invalid_credentials, byte for byte', async () => {
    const user = await registerUser(api);
    const wrongPassword = await rawLogin({ user_tag: user.tag, password: 'not-the-password-at-all' });
    const unknownUser = await rawLogin({ user_tag: uniqueTag('ghost'), password: 'not-the-password-at-all' });
    const unknownEmail = await rawLogin({ email: uniqueEmail(), password: 'not-the-password-at-all' });
    expect(wrongPassword.status).toBe(401);
    expect(JSON.parse(wrongPassword.text)).toEqual({
      detail: expect.any(String),
      code: 'invalid_credentials',
    });
    expect(unknownUser).toEqual(wrongPassword);
    expect(unknownEmail).toEqual(wrongPassword);
  });

  // Security review 2026-11-23 #15: an address typed at registration (anyone's) worked as a login name.
  it('when the email was only typed at registration, never verified, then the same 401 as a wrong password, byte for byte', async () => {
    const email = uniqueEmail();
    const user = await registerUser(api, { email });
    const byUnverified = await rawLogin({ email, password: user.password });
    const wrongPassword = await rawLogin({ user_tag: user.tag, password: 'not-the-password-at-all' });
    expect(byUnverified.status).toBe(401);
    expect(byUnverified).toEqual(wrongPassword);
  });

  it('when several accounts verified the email, then 409 ambiguous_email whatever the password, and each signs in by tag', async () => {
    const email = uniqueEmail();
    const first = await registerUser(api);
    const second = await registerUser(api, { password: 'second-strong-passphrase-8' });
    await verifyEmail(api, dataDir, first.token, email);
    await verifyEmail(api, dataDir, second.token, email);
    for (const password of [first.password, second.password, 'not-the-password-at-all']) {
      const res = await api.request('POST', '/v1/auth/password/login', { body: { email, password } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'ambiguous_email' });
    }
    for (const user of [first, second]) {
      const res = await api.request('POST', '/v1/auth/password/login', {
        body: { user_tag: user.tag, password: user.password },
      });
      expect(res.status).toBe(200);
    }
  });

  describe('password comparisons', () => {
    afterEach(() => {
      jest.restoreAllMocks();
    });

    it('when a login is tried, then exactly one bcrypt comparison runs, whether the account is unknown, known, or shares its email', async () => {
      const shared = uniqueEmail();
      const first = await registerUser(api);
      const second = await registerUser(api);
      await verifyEmail(api, dataDir, first.token, shared);
      await verifyEmail(api, dataDir, second.token, shared);
      const attempts: Record<string, unknown>[] = [
        { user_tag: uniqueTag('ghost'), password: 'not-the-password-at-all' },
        { email: uniqueEmail(), password: 'not-the-password-at-all' },
        { user_tag: first.tag, password: 'not-the-password-at-all' },
        { user_tag: first.tag, password: first.password },
        { email: shared, password: 'not-the-password-at-all' },
        { email: shared, password: second.password },
      ];
      const compare = jest.spyOn(bcrypt, 'compare');
      for (const body of attempts) {
        compare.mockClear();
        await rawLogin(body);
        expect({ body, comparisons: compare.mock.calls.length }).toEqual({ body, comparisons: 1 });
      }
    });
  });

  it('when both user_tag and email, or neither, are given, then 422', async () => {
    const user = await registerUser(api, { email: uniqueEmail() });
    const both = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, email: 'x@example.test', password: user.password },
    });
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({ code: 'validation_error' });
    const neither = await api.request('POST', '/v1/auth/password/login', {
      body: { password: user.password },
    });
    expect(neither.status).toBe(422);
    expect(neither.body).toMatchObject({ code: 'validation_error' });
  });

  it('when the password is missing, then 422 on password', async () => {
    const res = await api.request('POST', '/v1/auth/password/login', { body: { user_tag: 'someone' } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['body', 'password'] }] });
  });

  it('when the same user signs in several times, even presenting a session cookie, then each sign-in gets a new token', async () => {
    const user = await registerUser(api);
    const first = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const second = await api.request<Token>('POST', '/v1/auth/password/login', {
      cookie: `svc_session=${first.body.access_token}`,
      body: { user_tag: user.tag, password: user.password },
    });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const tokens = [user.token, first.body.access_token, second.body.access_token];
    expect(new Set(tokens).size).toBe(3);
    expect(cookieValue(second.cookies.svc_session)).toBe(second.body.access_token);
    const sessionIds = await Promise.all(
      tokens.map(async (token) => {
        const res = await api.request<{ session_id: string }>('GET', '/v1/auth/session', { token });
        expect(res.status).toBe(200);
        return res.body.session_id;
      }),
    );
    expect(new Set(sessionIds).size).toBe(3);
  });
});

describe('POST /v1/auth/password/change', () => {
  it('when a password field is missing, then 400 missing_field', async () => {
    const user = await registerUser(api);
    for (const body of [
      { new_password: 'another-strong-passphrase-9' },
      { current_password: user.password },
      {},
    ]) {
      const res = await api.request('POST', '/v1/auth/password/change', { token: user.token, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'missing_field' });
    }
  });

  it('when the new password is short or common, then 400 weak_password and the old password still works', async () => {
    const user = await registerUser(api);
    for (const newPassword of ['short-1', 'password1234']) {
      const res = await api.request('POST', '/v1/auth/password/change', {
        token: user.token,
        body: { current_password: user.password, new_password: newPassword },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'weak_password' });
    }
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(200);
    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(login.status).toBe(200);
  });

  it('when the current password is wrong, then 401 and nothing changes', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/password/change', {
      token: user.token,
      body: { current_password: 'not-my-password-at-all', new_password: 'another-strong-passphrase-9' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_credentials' });
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(200);
    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: 'another-strong-passphrase-9' },
    });
    expect(login.status).toBe(401);
  });

  it('when a managed user changes its password through a delegated token, then 403 managed_user_forbidden', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    const res = await api.request('POST', '/v1/auth/password/change', {
      token: delegated.body.access_token,
      body: { current_password: 'whatever-it-may-be', new_password: 'another-strong-passphrase-9' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'managed_user_forbidden' });
  });

  it('when no credentials are sent, then 401', async () => {
    const res = await api.request('POST', '/v1/auth/password/change', {
      body: { current_password: STRONG_PASSWORD, new_password: 'another-strong-passphrase-9' },
    });
    expect(res.status).toBe(401);
  });

  it('when the change succeeds, then a new working token, the old sessions answer 401, and only the new password signs in', async () => {
    const user = await registerUser(api);
    const otherSession = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const newPassword = 'another-strong-passphrase-9';
    const res = await api.request<Token>('POST', '/v1/auth/password/change', {
      token: user.token,
      body: { current_password: user.password, new_password: newPassword },
    });
    expectTokenResponse(res);
    expect(res.body.access_token).not.toBe(user.token);

    const me = await api.request<Me>('GET', '/v1/users/me', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.uid).toBe(user.uid);
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(401);
    expect((await api.request('GET', '/v1/users/me', { token: otherSession.body.access_token })).status).toBe(
      401,
    );

    const withNew = await api.request<Token>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: newPassword },
    });
    expect(withNew.status).toBe(200);
    const withOld = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    expect(withOld.status).toBe(401);
    expect(withOld.body).toMatchObject({ code: 'invalid_credentials' });
  });
});
