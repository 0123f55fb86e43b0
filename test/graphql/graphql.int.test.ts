// GraphQL at /graphql: the identity and user operations (the same use cases as REST), their
// errors in extensions.code / extensions.status, and the graphql-armor query limits.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freshDataDir, verifyEmail } from '../contacts/contact-helpers.js';
import {
  STRONG_PASSWORD,
  WRITER_SCOPES,
  createKey,
  createManaged,
  grant,
  loginAdmin,
  postMessage,
  registerUser,
  registerWriter,
  uniqueTag,
} from '../support/factories.js';
import {
  cookieValue,
  startTestServer,
  type ApiResponse,
  type RequestOptions,
  type TestServer,
} from '../support/test-server.js';
import type { Token } from '../support/api-types.js';

let api: TestServer;
// Its own data folder, whose outbox holds the codes that verify emails (only a verified email
// names an account at login).
const dataDir = freshDataDir();

beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir });
});
afterAll(async () => {
  await api.close();
});

interface GqlError {
  message: string;
  extensions?: Record<string, unknown>;
}

type GqlResponse<T> = ApiResponse<{ data: T | null; errors?: GqlError[] }>;

const TOKEN = 'access_token token_type expires_in expires_at';
const USER =
  'uid user_tag display_name bio is_managed is_bot has_api_access created_at deactivated_at bot { modalities integrations versions context_origin_id }';
const ME = `${USER} scopes contacts { kind value verified_at }`;
const SESSION =
  'session_id uid user_tag permissions created_at expires_at device_id acting_as { manager_uid }';
const TOKEN_PATTERN = /^svc_session_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/;
const STALE_TOKEN = `svc_session_${'0'.repeat(16)}.${'A'.repeat(43)}`;

function gql<T>(
  query: string,
  variables: Record<string, unknown> = {},
  options: RequestOptions = {},
): Promise<GqlResponse<T>> {
  return api.graphql<T>(query, variables, options);
}

/** The data of a successful answer; fails the test with the errors otherwise. */
function dataOf<T>(res: GqlResponse<T>): T {
  expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
  return res.body.data as T;
}

/** The single error of a failed operation, checked against the REST code and status. */
function expectGqlError<T>(res: GqlResponse<T>, code: string, status: number): GqlError {
  expect(res.status).toBeLessThan(500);
  const error = res.body.errors?.[0];
  expect(error?.extensions).toMatchObject({ code, status });
  expect(error?.message).toEqual(expect.any(String));
  return error!;
}

/** A request that failed as a whole (no execution), with the given HTTP status and code. */
function expectRequestRefused<T>(res: GqlResponse<T>, httpStatus: number, code: string): GqlError {
  expect(res.status).toBe(httpStatus);
  expect(res.body.data ?? null).toBeNull();
  const error = res.body.errors?.[0];
  expect(error?.extensions?.code).toBe(code);
  return error!;
}

async function meOf(token: string): Promise<{ uid: string; scopes: string[] }> {
  return dataOf(await gql<{ me: { uid: string; scopes: string[] } }>('{ me { uid scopes } }', {}, { token }))
    .me;
}

const REGISTER = `mutation ($input: RegisterInput!) { register(input: $input) { ${TOKEN} } }`;
const LOGIN = `mutation ($input: LoginInput!) { login(input: $input) { ${TOKEN} } }`;

describe('register', () => {
  it('when a new tag registers, then a TokenResponse and the svc_session cookie', async () => {
    const tag = uniqueTag('Gq');
    const res = await gql<{ register: Token }>(REGISTER, {
      input: { user_tag: tag, password: STRONG_PASSWORD },
    });
    const token = dataOf(res).register;
    expect(token.access_token).toMatch(TOKEN_PATTERN);
    expect(token.token_type).toBe('Bearer');
    expect(token.expires_in).toBe(30 * 24 * 3600);
    expect(Date.parse(token.expires_at)).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    const cookie = res.cookies.svc_session;
    expect(cookieValue(cookie)).toBe(token.access_token);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);

    const me = dataOf(
      await gql<{ me: { user_tag: string } }>('{ me { user_tag } }', {}, { token: token.access_token }),
    );
    expect(me.me.user_tag).toBe(tag);
  });

  it('when the tag is taken in another case, then user_tag_taken 409', async () => {
    const user = await registerUser(api);
    const res = await gql(REGISTER, {
      input: { user_tag: user.tag.toUpperCase(), password: STRONG_PASSWORD },
    });
    expectGqlError(res, 'user_tag_taken', 409);
    expect(res.cookies.svc_session).toBeUndefined();
  });

  it('when the password is weak, then weak_password 400', async () => {
    const res = await gql(REGISTER, { input: { user_tag: uniqueTag(), password: 'short' } });
    expectGqlError(res, 'weak_password', 400);
  });

  it('when the tag is malformed, then validation_error 422 with the args location', async () => {
    const res = await gql(REGISTER, { input: { user_tag: '-bad tag', password: STRONG_PASSWORD } });
    const error = expectGqlError(res, 'validation_error', 422);
    expect(error.extensions?.detail).toEqual([
      { loc: ['args', 'user_tag'], msg: expect.any(String), type: expect.any(String) },
    ]);
  });
});

describe('login', () => {
  it('when the user_tag and password match, then a new session and the cookie', async () => {
    const user = await registerUser(api);
    const res = await gql<{ login: Token }>(LOGIN, {
      input: { user_tag: user.tag, password: user.password },
    });
    const token = dataOf(res).login;
    expect(token.access_token).toMatch(TOKEN_PATTERN);
    expect(token.access_token).not.toBe(user.token);
    expect(cookieValue(res.cookies.svc_session)).toBe(token.access_token);
    expect((await meOf(token.access_token)).uid).toBe(user.uid);
  });

  it('when signing in by a verified email, then the session is the account of that email', async () => {
    const email = `${uniqueTag('mail')}@example.com`;
    const user = await registerUser(api, { email });
    await verifyEmail(api, dataDir, user.token, email);
    const res = await gql<{ login: Token }>(LOGIN, {
      input: { email: email.toUpperCase(), password: user.password },
    });
    expect((await meOf(dataOf(res).login.access_token)).uid).toBe(user.uid);
  });

  it('when the password is wrong or the user unknown, then invalid_credentials 401 with the same message', async () => {
    const user = await registerUser(api);
    const wrong = await gql(LOGIN, { input: { user_tag: user.tag, password: 'not-the-password-1' } });
    const unknown = await gql(LOGIN, { input: { user_tag: uniqueTag(), password: 'not-the-password-1' } });
    const a = expectGqlError(wrong, 'invalid_credentials', 401);
    const b = expectGqlError(unknown, 'invalid_credentials', 401);
    expect(a.message).toBe(b.message);
    expect(wrong.body.data).toBeNull();
    expect(wrong.cookies.svc_session).toBeUndefined();
  });

  it('when the browser still holds a revoked svc_session cookie, then login still signs in, as over REST', async () => {
    const user = await registerUser(api);
    const cookie = `svc_session=${STALE_TOKEN}`;
    const rest = await api.request('POST', '/v1/auth/password/login', {
      cookie,
      body: { user_tag: user.tag, password: user.password },
    });
    expect(rest.status).toBe(200);
    const res = await gql<{ login: Token }>(
      LOGIN,
      { input: { user_tag: user.tag, password: user.password } },
      { cookie },
    );
    expect(dataOf(res).login.access_token).toMatch(TOKEN_PATTERN);
  });
});

describe('me', () => {
  it('when unauthenticated, then not_authenticated 401 and no data', async () => {
    const res = await gql('{ me { uid } }');
    expectGqlError(res, 'not_authenticated', 401);
    expect(res.body.data).toBeNull();
  });

  it('when a registered user asks, then its scopes and its unverified email contact', async () => {
    const email = `${uniqueTag('Me')}@Example.com`;
    const user = await registerUser(api, { email });
    const me = dataOf(
      await gql<{ me: Record<string, unknown> }>(`{ me { ${ME} } }`, {}, { token: user.token }),
    ).me;
    expect(me).toMatchObject({
      uid: user.uid,
      user_tag: user.tag,
      is_managed: false,
      is_bot: false,
      bot: null,
    });
    expect(me.scopes).toEqual(['messages.read']);
    expect(me.contacts).toEqual([{ kind: 'email', value: email.toLowerCase(), verified_at: null }]);
  });

  it('when the grant changes, then me shows the new scopes', async () => {
    const user = await registerWriter(api);
    expect([...(await meOf(user.token)).scopes].sort()).toEqual([...WRITER_SCOPES].sort());
  });

  it('when me is read over REST and GraphQL, then the objects are equal', async () => {
    const user = await registerWriter(api);
    await api.request('POST', '/v1/users/profile', {
      token: user.token,
      body: { display_name: 'Both Ways', bio: 'same', is_bot: true, bot: { modalities: ['text'] } },
    });
    const rest = await api.request('GET', '/v1/users/me', { token: user.token });
    const graph = dataOf(await gql<{ me: unknown }>(`{ me { ${ME} } }`, {}, { token: user.token })).me;
    expect(rest.status).toBe(200);
    expect(graph).toEqual(rest.body);
  });
});

describe('authentication failures', () => {
  it('when the Bearer token is invalid, then the whole request is HTTP 401', async () => {
    const res = await gql('{ health }', {}, { token: STALE_TOKEN });
    expectRequestRefused(res, 401, 'invalid_session');
  });

  it('when the Bearer token is malformed, then HTTP 401', async () => {
    const res = await gql('{ me { uid } }', {}, { token: 'not-a-token' });
    expectRequestRefused(res, 401, 'invalid_session');
  });

  it('when the x-api-key is invalid, then HTTP 401 invalid_api_key', async () => {
    const res = await gql('{ me { uid } }', {}, { apiKey: 'sk_nonsense' });
    expectRequestRefused(res, 401, 'invalid_api_key');
  });
});

describe('userByTag', () => {
  const BY_TAG = `query ($tag: String!) { userByTag(user_tag: $tag) { ${USER} } }`;

  it('when the tag differs in case and has a leading @, then the user is found', async () => {
    const reader = await registerUser(api);
    const target = await registerUser(api, { tag: uniqueTag('MiXeD') });
    const res = await gql<{ userByTag: { uid: string; user_tag: string } }>(
      BY_TAG,
      { tag: `@${target.tag.toUpperCase()}` },
      { token: reader.token },
    );
    expect(dataOf(res).userByTag).toMatchObject({ uid: target.uid, user_tag: target.tag });
  });

  it('when asked over REST and GraphQL, then the objects are equal', async () => {
    const reader = await registerUser(api);
    const target = await registerUser(api);
    const rest = await api.request('GET', `/v1/users/by-tag/${target.tag}`, { token: reader.token });
    const graph = dataOf(
      await gql<{ userByTag: unknown }>(BY_TAG, { tag: target.tag }, { token: reader.token }),
    );
    expect(rest.status).toBe(200);
    expect(graph.userByTag).toEqual(rest.body);
  });

  it('when no such user exists, then user_not_found 404', async () => {
    const reader = await registerUser(api);
    expectGqlError(
      await gql(BY_TAG, { tag: uniqueTag('none') }, { token: reader.token }),
      'user_not_found',
      404,
    );
  });

  it('when the tag is not a valid tag, then validation_error 422', async () => {
    const reader = await registerUser(api);
    const error = expectGqlError(
      await gql(BY_TAG, { tag: 'no spaces!' }, { token: reader.token }),
      'validation_error',
      422,
    );
    expect(error.extensions?.detail).toEqual([expect.objectContaining({ loc: ['args', 'user_tag'] })]);
  });

  it('when unauthenticated, then not_authenticated 401', async () => {
    const target = await registerUser(api);
    expectGqlError(await gql(BY_TAG, { tag: target.tag }), 'not_authenticated', 401);
  });
});

describe('session', () => {
  it('when read, then it describes the presented session', async () => {
    const user = await registerUser(api);
    const session = dataOf(
      await gql<{ session: Record<string, unknown> }>(
        `{ session { ${SESSION} } }`,
        {},
        { token: user.token },
      ),
    ).session;
    expect(user.token.startsWith(`svc_session_${String(session.session_id)}.`)).toBe(true);
    expect(session).toMatchObject({
      uid: user.uid,
      user_tag: user.tag,
      permissions: ['messages.read'],
      device_id: null,
      acting_as: null,
    });
  });

  it('when read over REST and GraphQL, then the objects are equal', async () => {
    const user = await registerUser(api);
    const rest = await api.request('GET', '/v1/auth/session', { token: user.token });
    const graph = dataOf(
      await gql<{ session: unknown }>(`{ session { ${SESSION} } }`, {}, { token: user.token }),
    );
    expect(graph.session).toEqual(rest.body);
  });

  it('when unauthenticated, then not_authenticated 401', async () => {
    expectGqlError(await gql(`{ session { session_id } }`), 'not_authenticated', 401);
  });
});

describe('API keys', () => {
  const CREATE = `mutation ($input: KeyCreateInput) { createApiKey(input: $input) { key_id key label scopes_cap expires_at } }`;
  const LIST = '{ apiKeys { key_id label prefix scopes_cap created_at expires_at last_used_at revoked } }';
  const REVOKE = 'mutation ($id: String!) { revokeApiKey(key_id: $id) { key_id revoked } }';
  const EXCHANGE = `mutation ($input: TokenRequest) { exchangeApiKey(input: $input) { ${TOKEN} } }`;

  interface Created {
    key_id: string;
    key: string;
    label: string | null;
    scopes_cap: string | null;
    expires_at: string | null;
  }
  interface Listed {
    key_id: string;
    label: string | null;
    prefix: string;
    scopes_cap: string | null;
    revoked: boolean;
  }

  it('when a key is created, then its sk_ secret is shown once and the list shows it without the secret', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const created = dataOf(
      await gql<{ createApiKey: Created }>(
        CREATE,
        { input: { label: 'ci', scopes_cap: 'messages.read' } },
        { token: user.token },
      ),
    ).createApiKey;
    expect(created.key_id).toMatch(/^[0-9a-f]{8}$/);
    expect(created.key).toMatch(new RegExp(`^sk_${created.key_id}_`));
    expect(created).toMatchObject({ label: 'ci', scopes_cap: 'messages.read', expires_at: null });

    const listRes = await gql<{ apiKeys: Listed[] }>(LIST, {}, { token: user.token });
    const listed = dataOf(listRes).apiKeys.find((key) => key.key_id === created.key_id);
    expect(listed).toMatchObject({ label: 'ci', scopes_cap: 'messages.read', revoked: false });
    expect(created.key.startsWith(listed!.prefix)).toBe(true);
    expect(JSON.stringify(listRes.body)).not.toContain(created.key);
  });

  it('when the list is read over REST and GraphQL, then the keys are equal', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    await createKey(api, user.token, { label: 'one' });
    await createKey(api, user.token, { label: 'two' });
    const rest = await api.request<{ keys: unknown[] }>('GET', '/v1/auth/keys', { token: user.token });
    const graph = dataOf(await gql<{ apiKeys: unknown[] }>(LIST, {}, { token: user.token })).apiKeys;
    expect(graph).toHaveLength(2);
    expect(graph).toEqual(rest.body.keys);
  });

  it('when a key is exchanged with the x-api-key header, then a session narrowed to the cap and the cookie', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token, { scopes_cap: 'messages.read messages.write' });
    const res = await gql<{ exchangeApiKey: Token }>(
      EXCHANGE,
      { input: { requested_permissions: 'messages.write realtime.connect', device_id: 'gql-worker' } },
      { apiKey: key },
    );
    const token = dataOf(res).exchangeApiKey;
    expect(token.access_token).toMatch(TOKEN_PATTERN);
    expect(cookieValue(res.cookies.svc_session)).toBe(token.access_token);
    const session = dataOf(
      await gql<{ session: { uid: string; permissions: string[]; device_id: string } }>(
        `{ session { ${SESSION} } }`,
        {},
        { token: token.access_token },
      ),
    ).session;
    expect(session).toMatchObject({
      uid: user.uid,
      permissions: ['messages.write'],
      device_id: 'gql-worker',
    });
  });

  it('when the deprecated aud, cnf and act are sent, then they are accepted and ignored, as on REST', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const ignored = { aud: 'https://elsewhere.example', cnf: { jkt: 'thumbprint' }, act: { sub: 'someone' } };
    const token = dataOf(
      await gql<{ exchangeApiKey: Token }>(
        EXCHANGE,
        { input: { requested_permissions: 'messages.read', ...ignored } },
        { apiKey: key },
      ),
    ).exchangeApiKey;
    const session = dataOf(
      await gql<{ session: { uid: string; permissions: string[] } }>(
        `{ session { ${SESSION} } }`,
        {},
        { token: token.access_token },
      ),
    ).session;
    expect(session).toMatchObject({ uid: user.uid, permissions: ['messages.read'] });
    const rest = await api.request('POST', '/v1/auth/token', {
      apiKey: key,
      body: { requested_permissions: 'messages.read', ...ignored },
    });
    expect(rest.status).toBe(200);
  });

  it('when exchangeApiKey is called without x-api-key, then missing_api_key 400', async () => {
    expectGqlError(await gql(EXCHANGE, { input: {} }), 'missing_api_key', 400);
  });

  it('when the account lacks partner access, then api_access_required 403', async () => {
    const user = await registerWriter(api, { apiAccess: false });
    const { key } = await createKey(api, user.token);
    const res = await gql(EXCHANGE, {}, { apiKey: key });
    expectGqlError(res, 'api_access_required', 403);
  });

  it('when an unknown scope is requested, then validation_error 422', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const res = await gql(EXCHANGE, { input: { requested_permissions: 'root' } }, { apiKey: key });
    expectGqlError(res, 'validation_error', 422);
  });

  it('when a key is revoked, then it is listed as revoked and its sessions and itself fail with 401', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key, key_id } = await createKey(api, user.token);
    const minted = dataOf(await gql<{ exchangeApiKey: Token }>(EXCHANGE, {}, { apiKey: key })).exchangeApiKey;

    const revoked = dataOf(
      await gql<{ revokeApiKey: unknown }>(REVOKE, { id: key_id }, { token: user.token }),
    ).revokeApiKey;
    expect(revoked).toEqual({ key_id, revoked: true });
    const listed = dataOf(await gql<{ apiKeys: Listed[] }>(LIST, {}, { token: user.token })).apiKeys;
    expect(listed.find((k) => k.key_id === key_id)?.revoked).toBe(true);

    expectRequestRefused(await gql(EXCHANGE, {}, { apiKey: key }), 401, 'invalid_api_key');
    expectRequestRefused(
      await gql('{ me { uid } }', {}, { token: minted.access_token }),
      401,
      'invalid_session',
    );
  });

  it('when the key is not the caller’s, then key_not_found 404', async () => {
    const owner = await registerWriter(api, { apiAccess: true });
    const other = await registerUser(api);
    const { key_id } = await createKey(api, owner.token);
    expectGqlError(await gql(REVOKE, { id: key_id }, { token: other.token }), 'key_not_found', 404);
  });

  it('when the key id is malformed, then validation_error 422', async () => {
    const user = await registerUser(api);
    expectGqlError(await gql(REVOKE, { id: 'XYZ' }, { token: user.token }), 'validation_error', 422);
  });

  it('when unauthenticated, then createApiKey and apiKeys answer not_authenticated 401', async () => {
    expectGqlError(await gql(CREATE, { input: {} }), 'not_authenticated', 401);
    expectGqlError(await gql(LIST), 'not_authenticated', 401);
  });
});

describe('refreshSession', () => {
  const REFRESH = `mutation { refreshSession { ${TOKEN} } }`;

  it('when refreshed, then the same token with a later expiry and the cookie', async () => {
    const user = await registerUser(api);
    const before = dataOf(
      await gql<{ session: { expires_at: string } }>('{ session { expires_at } }', {}, { token: user.token }),
    ).session;
    const res = await gql<{ refreshSession: Token }>(REFRESH, {}, { token: user.token });
    const token = dataOf(res).refreshSession;
    expect(token.access_token).toBe(user.token);
    expect(token.expires_in).toBe(30 * 24 * 3600);
    expect(Date.parse(token.expires_at)).toBeGreaterThan(Date.parse(before.expires_at));
    expect(cookieValue(res.cookies.svc_session)).toBe(user.token);
    const after = dataOf(
      await gql<{ session: { expires_at: string } }>('{ session { expires_at } }', {}, { token: user.token }),
    ).session;
    expect(after.expires_at).toBe(token.expires_at);
  });

  it('when unauthenticated, then not_authenticated 401', async () => {
    expectGqlError(await gql(REFRESH), 'not_authenticated', 401);
  });
});

describe('changePassword', () => {
  const CHANGE = `mutation ($input: PasswordChangeInput!) { changePassword(input: $input) { ${TOKEN} } }`;

  it('when the new password is weak, then weak_password 400', async () => {
    const user = await registerUser(api);
    const res = await gql(
      CHANGE,
      { input: { current_password: user.password, new_password: 'password' } },
      { token: user.token },
    );
    expectGqlError(res, 'weak_password', 400);
  });

  it('when the current password is wrong, then invalid_credentials 401', async () => {
    const user = await registerUser(api);
    const res = await gql(
      CHANGE,
      { input: { current_password: 'wrong-current-pass', new_password: 'another-long-passphrase-7' } },
      { token: user.token },
    );
    expectGqlError(res, 'invalid_credentials', 401);
  });

  it('when changed, then a new session works, the old one is ended, and only the new password signs in', async () => {
    const user = await registerUser(api);
    const newPassword = 'another-long-passphrase-7';
    const res = await gql<{ changePassword: Token }>(
      CHANGE,
      { input: { current_password: user.password, new_password: newPassword } },
      { token: user.token },
    );
    const token = dataOf(res).changePassword;
    expect(token.access_token).not.toBe(user.token);
    expect(cookieValue(res.cookies.svc_session)).toBe(token.access_token);
    expect((await meOf(token.access_token)).uid).toBe(user.uid);
    expectRequestRefused(await gql('{ me { uid } }', {}, { token: user.token }), 401, 'invalid_session');

    expectGqlError(
      await gql(LOGIN, { input: { user_tag: user.tag, password: user.password } }),
      'invalid_credentials',
      401,
    );
    dataOf(await gql(LOGIN, { input: { user_tag: user.tag, password: newPassword } }));
  });

  it('when a managed user tries, then managed_user_forbidden 403', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    const res = await gql(
      CHANGE,
      { input: { current_password: 'whatever-it-is-1', new_password: 'another-long-passphrase-7' } },
      { token: delegated.body.access_token },
    );
    expectGqlError(res, 'managed_user_forbidden', 403);
  });
});

describe('updateProfile', () => {
  const UPDATE = `mutation ($input: ProfileUpdateInput!) { updateProfile(input: $input) { ${ME} } }`;

  it('when the profile and bot metadata are changed, then me shows them over both transports', async () => {
    const user = await registerUser(api);
    // A context origin must be a root the bot may see (docs/decisions/026): a public one.
    const writer = await registerWriter(api);
    const origin = (await postMessage(api, writer.token, { content: 'a context origin', public: true })).id;
    const res = await gql<{ updateProfile: Record<string, unknown> }>(
      UPDATE,
      {
        input: {
          display_name: 'Gql Person',
          bio: 'Writes queries.',
          is_bot: true,
          bot: { modalities: ['text'], integrations: ['slack'], versions: ['1.0'] },
          context_origin_id: origin,
        },
      },
      { token: user.token },
    );
    const updated = dataOf(res).updateProfile;
    expect(updated).toMatchObject({
      uid: user.uid,
      display_name: 'Gql Person',
      bio: 'Writes queries.',
      is_bot: true,
      bot: { modalities: ['text'], integrations: ['slack'], versions: ['1.0'], context_origin_id: origin },
    });
    const rest = await api.request('GET', '/v1/users/me', { token: user.token });
    expect(rest.body).toEqual(updated);
  });

  it('when a field is invalid, then validation_error 422 and nothing changes', async () => {
    const user = await registerUser(api);
    const res = await gql(
      UPDATE,
      { input: { display_name: 'Should Not Stick', context_origin_id: 'NOT-HEX' } },
      { token: user.token },
    );
    const error = expectGqlError(res, 'validation_error', 422);
    expect(error.extensions?.detail).toEqual([
      expect.objectContaining({ loc: ['args', 'context_origin_id'] }),
    ]);
    const me = dataOf(
      await gql<{ me: { display_name: string | null } }>(
        '{ me { display_name } }',
        {},
        { token: user.token },
      ),
    );
    expect(me.me.display_name).toBeNull();
  });

  it('when unauthenticated, then not_authenticated 401', async () => {
    expectGqlError(await gql(UPDATE, { input: { bio: 'x' } }), 'not_authenticated', 401);
  });
});

describe('managed users', () => {
  const CREATE = `mutation ($input: ManagedUserCreateInput!) { createManagedUser(input: $input) { ${USER} } }`;
  const LIST = `{ managedUsers { ${USER} } }`;

  it('when a writer creates a bot, then it is managed and listed under the caller', async () => {
    const manager = await registerWriter(api);
    const tag = uniqueTag('bot');
    const created = dataOf(
      await gql<{ createManagedUser: { uid: string } & Record<string, unknown> }>(
        CREATE,
        { input: { user_tag: tag, display_name: 'Helper', is_bot: true, bot: { modalities: ['text'] } } },
        { token: manager.token },
      ),
    ).createManagedUser;
    expect(created).toMatchObject({
      user_tag: tag,
      display_name: 'Helper',
      is_managed: true,
      is_bot: true,
      bot: { modalities: ['text'], integrations: [], versions: [], context_origin_id: null },
    });
    expect(created.uid).toMatch(/^[0-9a-f]{8}$/);

    const listed = dataOf(
      await gql<{ managedUsers: unknown[] }>(LIST, {}, { token: manager.token }),
    ).managedUsers;
    expect(listed).toEqual([created]);
    const rest = await api.request<{ users: unknown[] }>('GET', '/v1/managed/users', {
      token: manager.token,
    });
    expect(rest.body.users).toEqual(listed);
  });

  it('when the caller lacks messages.write, then insufficient_scope 403', async () => {
    const reader = await registerUser(api);
    expectGqlError(
      await gql(CREATE, { input: { user_tag: uniqueTag('bot') } }, { token: reader.token }),
      'insufficient_scope',
      403,
    );
  });

  it('when the tag is taken, then user_tag_taken 409', async () => {
    const manager = await registerWriter(api);
    expectGqlError(
      await gql(CREATE, { input: { user_tag: manager.tag.toUpperCase() } }, { token: manager.token }),
      'user_tag_taken',
      409,
    );
  });

  it('when the caller manages nobody, then the list is empty', async () => {
    const user = await registerUser(api);
    expect(
      dataOf(await gql<{ managedUsers: unknown[] }>(LIST, {}, { token: user.token })).managedUsers,
    ).toEqual([]);
  });
});

describe('delegate', () => {
  const DELEGATE = `mutation ($uid: String!) { delegate(managed_uid: $uid) { ${TOKEN} } }`;

  it('when the manager delegates, then a token for the managed user and no cookie', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const res = await gql<{ delegate: Token }>(DELEGATE, { uid: bot.uid }, { token: manager.token });
    const token = dataOf(res).delegate;
    expect(token.access_token).toMatch(TOKEN_PATTERN);
    expect(res.cookies.svc_session).toBeUndefined();
    const session = dataOf(
      await gql<{ session: { uid: string; acting_as: unknown } }>(
        `{ session { ${SESSION} } }`,
        {},
        { token: token.access_token },
      ),
    ).session;
    expect(session).toMatchObject({ uid: bot.uid, acting_as: { manager_uid: manager.uid } });
  });

  it('when the caller does not manage that user, then not_manager 403', async () => {
    const manager = await registerWriter(api);
    const stranger = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    expectGqlError(await gql(DELEGATE, { uid: bot.uid }, { token: stranger.token }), 'not_manager', 403);
  });

  it('when the uid is malformed, then validation_error 422', async () => {
    const manager = await registerWriter(api);
    expectGqlError(await gql(DELEGATE, { uid: 'nope' }, { token: manager.token }), 'validation_error', 422);
  });
});

describe('actAs and actAsReturn', () => {
  const ACT_AS = `mutation ($uid: String!) { actAs(subject_uid: $uid) { ${TOKEN} } }`;
  const RETURN = `mutation { actAsReturn { ${TOKEN} } }`;

  it('when a manager acts as its bot and returns, then the cookies swap and the delegated session ends', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);

    const acted = await gql<{ actAs: Token }>(ACT_AS, { uid: bot.uid }, { token: manager.token });
    const delegated = dataOf(acted).actAs;
    expect(cookieValue(acted.cookies.svc_session)).toBe(delegated.access_token);
    expect(cookieValue(acted.cookies.svc_mgr_session)).toBe(manager.token);
    expect(acted.cookies.svc_mgr_session).toMatch(/HttpOnly/);
    expect((await meOf(delegated.access_token)).uid).toBe(bot.uid);

    const cookie = `svc_session=${delegated.access_token}; svc_mgr_session=${manager.token}`;
    const back = await gql<{ actAsReturn: Token }>(RETURN, {}, { cookie });
    const restored = dataOf(back).actAsReturn;
    expect(restored.access_token).toBe(manager.token);
    expect(cookieValue(back.cookies.svc_session)).toBe(manager.token);
    expect(cookieValue(back.cookies.svc_mgr_session)).toBe('');
    expect((await meOf(manager.token)).uid).toBe(manager.uid);
    expectRequestRefused(
      await gql('{ me { uid } }', {}, { token: delegated.access_token }),
      401,
      'invalid_session',
    );
  });

  it('when there is no manager cookie to return to, then invalid_session 401', async () => {
    const manager = await registerWriter(api);
    expectGqlError(await gql(RETURN, {}, { cookie: `svc_session=${manager.token}` }), 'invalid_session', 401);
  });

  it('when the caller does not manage the subject, then not_manager 403', async () => {
    const user = await registerWriter(api);
    const other = await registerUser(api);
    expectGqlError(await gql(ACT_AS, { uid: other.uid }, { token: user.token }), 'not_manager', 403);
  });
});

describe('adminUpdateUser', () => {
  const UPDATE = `mutation ($uid: String!, $input: AdminUserUpdateInput!) { adminUpdateUser(uid: $uid, input: $input) { ${USER} } }`;

  it('when the admin grants scopes and partner access, then the user has them', async () => {
    const user = await registerUser(api);
    const res = await gql<{ adminUpdateUser: { uid: string; has_api_access: boolean } }>(
      UPDATE,
      { uid: user.uid, input: { scopes: ['messages.read', 'channels.create'], has_api_access: true } },
      { token: await loginAdmin(api) },
    );
    expect(dataOf(res).adminUpdateUser).toMatchObject({ uid: user.uid, has_api_access: true });
    // Sessions freeze their permissions when minted, so the new grant shows in a new session.
    const login = await gql<{ login: Token }>(LOGIN, {
      input: { user_tag: user.tag, password: user.password },
    });
    const fresh = dataOf(login).login.access_token;
    expect([...(await meOf(fresh)).scopes].sort()).toEqual(['channels.create', 'messages.read']);
  });

  it('when the admin takes a scope away, then existing sessions lose it at once', async () => {
    const user = await registerWriter(api);
    expect((await meOf(user.token)).scopes).toContain('messages.write');
    const res = await gql(
      UPDATE,
      { uid: user.uid, input: { scopes: ['messages.read'] } },
      { token: await loginAdmin(api) },
    );
    dataOf(res);
    expect((await meOf(user.token)).scopes).toEqual(['messages.read']);
  });

  it('when the caller is not an admin, then insufficient_scope 403 and nothing changes', async () => {
    const user = await registerWriter(api);
    const res = await gql(UPDATE, { uid: user.uid, input: { scopes: ['admin'] } }, { token: user.token });
    expectGqlError(res, 'insufficient_scope', 403);
    expect((await meOf(user.token)).scopes).not.toContain('admin');
  });

  it('when the uid is unknown, then user_not_found 404', async () => {
    expectGqlError(
      await gql(
        UPDATE,
        { uid: '0badc0de', input: { has_api_access: false } },
        { token: await loginAdmin(api) },
      ),
      'user_not_found',
      404,
    );
  });

  it('when a scope name is unknown, then validation_error 422', async () => {
    const user = await registerUser(api);
    expectGqlError(
      await gql(UPDATE, { uid: user.uid, input: { scopes: ['root'] } }, { token: await loginAdmin(api) }),
      'validation_error',
      422,
    );
  });

  it('when the admin grants over GraphQL, then REST reads the same user', async () => {
    const user = await registerUser(api);
    await grant(api, user.uid, { has_api_access: true });
    const rest = await api.request('GET', `/v1/users/by-tag/${user.tag}`, { token: user.token });
    expect(rest.body).toMatchObject({ uid: user.uid, has_api_access: true });
  });
});

describe('logout', () => {
  const LOGOUT = 'mutation { logout }';

  it('when a session logs out, then true, the cookies are cleared and the token is dead', async () => {
    const user = await registerUser(api);
    const res = await gql<{ logout: boolean }>(LOGOUT, {}, { token: user.token });
    expect(dataOf(res).logout).toBe(true);
    expect(cookieValue(res.cookies.svc_session)).toBe('');
    expect(res.cookies.svc_session).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(cookieValue(res.cookies.svc_mgr_session)).toBe('');
    expectRequestRefused(await gql('{ me { uid } }', {}, { token: user.token }), 401, 'invalid_session');
  });

  it('when the browser logs out twice with the same cookie, then both answer true and clear it, as over REST', async () => {
    const user = await registerUser(api);
    const cookie = `svc_session=${user.token}`;
    expect(dataOf(await gql<{ logout: boolean }>(LOGOUT, {}, { cookie })).logout).toBe(true);
    const rest = await api.request('POST', '/v1/auth/logout', { cookie });
    expect(rest.status).toBe(200);
    const again = await gql<{ logout: boolean }>(LOGOUT, {}, { cookie });
    expect(dataOf(again).logout).toBe(true);
    expect(cookieValue(again.cookies.svc_session)).toBe('');
  });

  it('when no one is signed in, then logout still answers true', async () => {
    expect(dataOf(await gql<{ logout: boolean }>(LOGOUT)).logout).toBe(true);
  });

  it('when a Bearer token logs out twice, then both answer true, as over REST', async () => {
    const user = await registerUser(api);
    expect(dataOf(await gql<{ logout: boolean }>(LOGOUT, {}, { token: user.token })).logout).toBe(true);
    const again = await gql<{ logout: boolean }>(LOGOUT, {}, { token: user.token });
    expect(again.status).toBe(200);
    expect(dataOf(again).logout).toBe(true);
    // Only a logout goes on without a caller: anything else with the dead token is still refused.
    expectRequestRefused(await gql('{ me { uid } }', {}, { token: user.token }), 401, 'invalid_session');
  });
});

describe('request errors', () => {
  it('when the body is not valid JSON, then 400 invalid_json', async () => {
    const res = await api.request('POST', '/graphql', {
      rawBody: '{"query": "{ health ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_json' });
  });

  it('when the query does not parse, then 400 GRAPHQL_PARSE_FAILED', async () => {
    const res = await gql('{ health ');
    expect({ status: res.status, errors: res.body.errors }).toEqual({
      status: 400,
      errors: [
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'GRAPHQL_PARSE_FAILED' }) }),
      ],
    });
  });

  it('when a field does not exist, then 400 GRAPHQL_VALIDATION_FAILED without a field suggestion', async () => {
    const error = expectRequestRefused(await gql('{ healt }'), 400, 'GRAPHQL_VALIDATION_FAILED');
    expect(error.message).not.toMatch(/Did you mean/);
  });
});

describe('query limits', () => {
  /** `__type { fields { type { ofType … { name } } } }`: depth 4 + the number of ofType levels. */
  function typeChain(ofTypes: number): string {
    return `{ __type(name: "Query") { fields { type { ${'ofType { '.repeat(ofTypes)}name${' }'.repeat(ofTypes)} } } } }`;
  }

  it('when a query is 10 levels deep, then it runs', async () => {
    const res = await gql<{ __type: { fields: unknown[] } }>(typeChain(6));
    expect(dataOf(res).__type.fields.length).toBeGreaterThan(0);
  });

  it('when a query is nested deeper than 10 levels, then 400 and it does not run', async () => {
    const error = expectRequestRefused(await gql(typeChain(8)), 400, 'GRAPHQL_VALIDATION_FAILED');
    expect(error.message).toMatch(/depth limit of 10 exceeded, found 12/);
  });

  it('when a query has 15 aliases, then it runs', async () => {
    const fields = Array.from({ length: 15 }, (_, i) => `a${i}: health`).join(' ');
    const data = dataOf(await gql<Record<string, boolean>>(`{ ${fields} }`));
    expect(Object.keys(data)).toHaveLength(15);
  });

  it('when a query has more than 15 aliases, then 400 and it does not run', async () => {
    const fields = Array.from({ length: 20 }, (_, i) => `a${i}: health`).join(' ');
    const error = expectRequestRefused(await gql(`{ ${fields} }`), 400, 'GRAPHQL_VALIDATION_FAILED');
    expect(error.message).toMatch(/Aliases limit of 15 exceeded, found 20/);
  });

  it('when a query costs more than the limit, then 400 and it does not run', async () => {
    const costly = `{ __type(name: "Query") { fields { type { ofType { ofType { ofType { ofType { ${'name '.repeat(600)}} } } } } } } }`;
    const error = expectRequestRefused(await gql(costly), 400, 'GRAPHQL_VALIDATION_FAILED');
    expect(error.message).toMatch(/Cost limit of 5000 exceeded/);
  });

  it('when a query is under the token limit, then it runs', async () => {
    // About 2,700 tokens: 300 fragments of one field each (distinct fragments keep validation cheap).
    const spreads = Array.from({ length: 300 }, (_, i) => `...F${i}`).join(' ');
    const fragments = Array.from({ length: 300 }, (_, i) => `fragment F${i} on Query { health }`).join(' ');
    const data = dataOf(await gql<{ health: boolean }>(`{ ${spreads} } ${fragments}`));
    expect(data.health).toBe(true);
  });

  it('when a query is over the token limit, then it is refused with a 4xx, never a 5xx', async () => {
    const fields = Array.from({ length: 4000 }, (_, i) => `f${i}: health`).join(' ');
    const res = await gql(`{ ${fields} }`);
    expect({ status: res.status, errors: res.body.errors }).toEqual({
      status: 400,
      errors: [expect.objectContaining({ message: expect.stringMatching(/token/i) })],
    });
    expect(res.body.data ?? null).toBeNull();
  });
});
