// Users and managed users: GET /v1/users/me, POST /v1/users/profile, GET /v1/users/by-tag/{user_tag},
// POST and GET /v1/managed/users.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  WRITER_SCOPES,
  createManaged,
  loginAdmin,
  postMessage,
  registerUser,
  registerWriter,
  uniqueTag,
} from '../support/factories.js';
import { TEST_ADMIN, startTestServer, type TestServer } from '../support/test-server.js';
import { USER_FIELDS } from '../support/api-types.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

/**
 * The id of a public root message: a context_origin_id must name a root the bot may see
 * (docs/decisions/026), and a public one is seen by every account, a bot being created too.
 */
async function publicRootId(): Promise<string> {
  const writer = await registerWriter(api);
  return (await postMessage(api, writer.token, { content: 'a context origin', public: true })).id;
}

interface Bot {
  modalities: string[];
  integrations: string[];
  versions: string[];
  context_origin_id: string | null;
}

interface User {
  uid: string;
  user_tag: string;
  display_name: string | null;
  bio: string | null;
  is_managed: boolean;
  is_bot: boolean;
  has_api_access: boolean;
  created_at: string;
  bot: Bot | null;
}

interface Me extends User {
  scopes: string[];
  contacts: { kind: string; value: string; verified_at: string | null }[];
}

const ME_FIELDS = [...USER_FIELDS, 'contacts', 'scopes'].sort();
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const sorted = (values: readonly string[]) => [...values].sort();

async function updateProfile(token: string, body: unknown) {
  return api.request<Me>('POST', '/v1/users/profile', { token, body });
}

async function getMe(token: string) {
  return api.request<Me>('GET', '/v1/users/me', { token });
}

async function delegatedToken(managerToken: string, managedUid: string): Promise<string> {
  const res = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: managerToken,
    body: { managed_uid: managedUid },
  });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

function expectValidationError(res: { status: number; body: unknown }, loc: (string | number)[]): void {
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({
    code: 'validation_error',
    detail: expect.arrayContaining([{ loc, msg: expect.any(String), type: expect.any(String) }]),
  });
}

describe('GET /v1/users/me', () => {
  it('when a registered user asks, then its UserOutput plus scopes and contacts', async () => {
    const email = `${uniqueTag('m')}@example.com`;
    const user = await registerUser(api, { email });
    const res = await getMe(user.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ME_FIELDS);
    expect(res.body).toEqual({
      uid: expect.stringMatching(/^[0-9a-f]{8}$/),
      user_tag: user.tag,
      display_name: null,
      bio: null,
      is_managed: false,
      is_bot: false,
      has_api_access: false,
      created_at: expect.stringMatching(TIMESTAMP),
      deactivated_at: null,
      bot: null,
      scopes: ['messages.read'],
      contacts: [{ kind: 'email', value: email, verified_at: null }],
    });
    expect(Date.parse(res.body.created_at)).toBeLessThanOrEqual(Date.now());
  });

  it('when a writer with partner access asks, then its granted scopes and has_api_access show', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const res = await getMe(user.token);
    expect(res.status).toBe(200);
    expect(sorted(res.body.scopes)).toEqual(sorted(WRITER_SCOPES));
    expect(res.body.has_api_access).toBe(true);
    expect(res.body.contacts).toEqual([]);
    expect(res.body).not.toHaveProperty('password_hash');
  });

  it('when a managed user asks through a delegated token, then is_managed is true with the writer scopes', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const res = await getMe(await delegatedToken(manager.token, bot.uid));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uid: bot.uid, is_managed: true, is_bot: true });
    expect(sorted(res.body.scopes)).toEqual(sorted(WRITER_SCOPES));
  });

  it('when there are no credentials, then 401 not_authenticated', async () => {
    const res = await api.request('GET', '/v1/users/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
  });

  it('when the token is not a valid session, then 401 invalid_session', async () => {
    const res = await api.request('GET', '/v1/users/me', {
      token: `svc_session_${'0'.repeat(16)}.${'A'.repeat(43)}`,
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_session' });
  });
});

describe('POST /v1/users/profile', () => {
  it('when display_name and bio are sent, then the updated profile is answered and kept', async () => {
    const user = await registerUser(api);
    const res = await updateProfile(user.token, { display_name: 'Ada Lovelace', bio: 'Counts things.' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ME_FIELDS);
    expect(res.body).toMatchObject({
      uid: user.uid,
      display_name: 'Ada Lovelace',
      bio: 'Counts things.',
      is_bot: false,
      bot: null,
    });
    const again = await getMe(user.token);
    expect(again.body).toMatchObject({ display_name: 'Ada Lovelace', bio: 'Counts things.' });
  });

  it('when only some fields are sent, then the others stay as they were', async () => {
    const user = await registerUser(api);
    await updateProfile(user.token, { display_name: 'First', bio: 'Bio one' });
    const bioOnly = await updateProfile(user.token, { bio: 'Bio two' });
    expect(bioOnly.status).toBe(200);
    expect(bioOnly.body).toMatchObject({ display_name: 'First', bio: 'Bio two' });
    const nameOnly = await updateProfile(user.token, { display_name: 'Second' });
    expect(nameOnly.body).toMatchObject({ display_name: 'Second', bio: 'Bio two' });
    const nothing = await updateProfile(user.token, {});
    expect(nothing.status).toBe(200);
    expect(nothing.body).toMatchObject({ display_name: 'Second', bio: 'Bio two' });
  });

  it('when display_name is null, then it is cleared', async () => {
    const user = await registerUser(api);
    await updateProfile(user.token, { display_name: 'Someone', bio: 'stays' });
    const res = await updateProfile(user.token, { display_name: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: null, bio: 'stays' });
    expect((await getMe(user.token)).body.display_name).toBeNull();
  });

  it('when is_bot is true with bot metadata, then bot carries modalities, integrations, versions and context_origin_id', async () => {
    const user = await registerUser(api);
    const bot = {
      modalities: ['text', 'image'],
      integrations: ['webhook'],
      versions: ['v1', 'v2'],
      context_origin_id: await publicRootId(),
    };
    const res = await updateProfile(user.token, { is_bot: true, bot });
    expect(res.status).toBe(200);
    expect(res.body.is_bot).toBe(true);
    expect(res.body.bot).toEqual(bot);
    expect((await getMe(user.token)).body.bot).toEqual(bot);
  });

  it('when context_origin_id is given at the top level, then it appears in bot', async () => {
    const user = await registerUser(api);
    const origin = await publicRootId();
    const res = await updateProfile(user.token, { is_bot: true, context_origin_id: origin });
    expect(res.status).toBe(200);
    expect(res.body.bot).toEqual({
      modalities: [],
      integrations: [],
      versions: [],
      context_origin_id: origin,
    });
    const cleared = await updateProfile(user.token, { context_origin_id: null });
    expect(cleared.body.bot?.context_origin_id).toBeNull();
  });

  it('when only one bot field is sent, then the other bot fields stay as they were', async () => {
    const user = await registerUser(api);
    const origin = await publicRootId();
    await updateProfile(user.token, {
      is_bot: true,
      bot: {
        modalities: ['text'],
        integrations: ['webhook'],
        versions: ['v1'],
        context_origin_id: origin,
      },
    });
    const res = await updateProfile(user.token, { bot: { versions: ['v2'] } });
    expect(res.status).toBe(200);
    expect(res.body.bot).toEqual({
      modalities: ['text'],
      integrations: ['webhook'],
      versions: ['v2'],
      context_origin_id: origin,
    });
  });

  it('when is_bot is false, then bot is null in the output', async () => {
    const user = await registerUser(api);
    await updateProfile(user.token, { is_bot: true, bot: { modalities: ['text'] } });
    const res = await updateProfile(user.token, { is_bot: false });
    expect(res.status).toBe(200);
    expect(res.body.is_bot).toBe(false);
    expect(res.body.bot).toBeNull();
    const byTag = await api.request<User>('GET', `/v1/users/by-tag/${user.tag}`, { token: user.token });
    expect(byTag.body.bot).toBeNull();
  });

  it('when an unknown field is sent, then 422 and nothing changes', async () => {
    const user = await registerUser(api);
    await updateProfile(user.token, { display_name: 'Kept' });
    const res = await updateProfile(user.token, { display_name: 'Changed', nickname: 'x' });
    expectValidationError(res, ['body']);
    expect((await getMe(user.token)).body.display_name).toBe('Kept');
  });

  it('when a field may not be set this way, then 422', async () => {
    const user = await registerUser(api);
    for (const field of ['scopes', 'has_api_access', 'is_managed', 'user_tag']) {
      const res = await updateProfile(user.token, {
        [field]: field === 'scopes' ? ['admin'] : field === 'user_tag' ? 'x' + user.tag : true,
      });
      expect(res.status).toBe(422);
    }
    const after = await getMe(user.token);
    expect(after.body.scopes).toEqual(['messages.read']);
    expect(after.body.has_api_access).toBe(false);
    expect(after.body.user_tag).toBe(user.tag);
  });

  it('when display_name is too long or empty, then 422 on display_name', async () => {
    const user = await registerUser(api);
    expectValidationError(await updateProfile(user.token, { display_name: 'x'.repeat(101) }), [
      'body',
      'display_name',
    ]);
    expectValidationError(await updateProfile(user.token, { display_name: '   ' }), ['body', 'display_name']);
    expect((await updateProfile(user.token, { display_name: 'x'.repeat(100) })).status).toBe(200);
  });

  it('when context_origin_id is not 8 lowercase hex characters, then 422', async () => {
    const user = await registerUser(api);
    for (const id of ['xyz', 'ABCDEF12', '0123456789', 'g1234567']) {
      expectValidationError(await updateProfile(user.token, { context_origin_id: id }), [
        'body',
        'context_origin_id',
      ]);
      expectValidationError(
        await updateProfile(user.token, { is_bot: true, bot: { context_origin_id: id } }),
        ['body', 'bot', 'context_origin_id'],
      );
    }
    expect((await getMe(user.token)).body.is_bot).toBe(false);
  });

  it('when the body is not JSON, then 400 invalid_json', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/users/profile', {
      token: user.token,
      rawBody: '{"bio":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_json' });
  });

  it('when there are no credentials, then 401', async () => {
    const res = await api.request('POST', '/v1/users/profile', { body: { bio: 'x' } });
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/users/by-tag/{user_tag}', () => {
  it('when the tag is known, then its UserOutput without password_hash or scopes', async () => {
    const viewer = await registerUser(api);
    const target = await registerUser(api);
    await updateProfile(target.token, { display_name: 'Target', bio: 'Hello' });
    const res = await api.request<User>('GET', `/v1/users/by-tag/${target.tag}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(USER_FIELDS);
    expect(res.body).toEqual({
      uid: target.uid,
      user_tag: target.tag,
      display_name: 'Target',
      bio: 'Hello',
      is_managed: false,
      is_bot: false,
      has_api_access: false,
      created_at: expect.stringMatching(TIMESTAMP),
      deactivated_at: null,
      bot: null,
    });
  });

  it('when the user is the admin, then neither scopes nor password_hash leak', async () => {
    const viewer = await registerUser(api);
    const res = await api.request<User>('GET', `/v1/users/by-tag/${TEST_ADMIN.tag}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(USER_FIELDS);
    expect(JSON.stringify(res.body)).not.toMatch(/password|scopes|\$2[aby]\$/);
  });

  it('when the tag differs in case or has a leading @ (raw or %40), then the same user', async () => {
    const viewer = await registerUser(api);
    const target = await registerUser(api, { tag: uniqueTag('MiXed') });
    for (const tag of [
      target.tag.toUpperCase(),
      target.tag.toLowerCase(),
      `@${target.tag}`,
      `%40${target.tag}`,
    ]) {
      const res = await api.request<User>('GET', `/v1/users/by-tag/${tag}`, { token: viewer.token });
      expect(res.status).toBe(200);
      expect(res.body.uid).toBe(target.uid);
      expect(res.body.user_tag).toBe(target.tag);
    }
  });

  it('when a managed bot is looked up, then is_managed and its bot metadata show', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token, { is_bot: true, bot: { modalities: ['text'] } });
    const res = await api.request<User>('GET', `/v1/users/by-tag/${bot.user_tag}`, { token: manager.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uid: bot.uid, is_managed: true, is_bot: true });
    expect(res.body.bot).toEqual({
      modalities: ['text'],
      integrations: [],
      versions: [],
      context_origin_id: null,
    });
  });

  it('when no user has the tag, then 404 user_not_found', async () => {
    const viewer = await registerUser(api);
    const res = await api.request('GET', `/v1/users/by-tag/${uniqueTag('nobody')}`, { token: viewer.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'user_not_found' });
  });

  it('when the tag is not a valid tag, then 422', async () => {
    const viewer = await registerUser(api);
    for (const tag of ['a', '-abc', '_abc', 'a%21b', 'x'.repeat(33), '%40%40abc', 'a%20b']) {
      const res = await api.request('GET', `/v1/users/by-tag/${tag}`, { token: viewer.token });
      expectValidationError(res, ['path', 'user_tag']);
    }
  });

  it('when there are no credentials, then 401', async () => {
    const res = await api.request('GET', `/v1/users/by-tag/${TEST_ADMIN.tag}`);
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/managed/users', () => {
  it('when a writer creates a managed user, then 201 UserOutput with is_managed true and the caller manages it', async () => {
    const manager = await registerWriter(api);
    const tag = uniqueTag('helper');
    const res = await api.request<User>('POST', '/v1/managed/users', {
      token: manager.token,
      body: { user_tag: tag, display_name: 'Helper' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(USER_FIELDS);
    expect(res.body).toEqual({
      uid: expect.stringMatching(/^[0-9a-f]{8}$/),
      user_tag: tag,
      display_name: 'Helper',
      bio: null,
      is_managed: true,
      is_bot: false,
      has_api_access: false,
      created_at: expect.stringMatching(TIMESTAMP),
      deactivated_at: null,
      bot: null,
    });
    expect(res.body.uid).not.toBe(manager.uid);
    const list = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(list.body.users).toEqual([res.body]);
  });

  it('when is_bot and bot metadata are given, then they are stored and shown', async () => {
    const manager = await registerWriter(api);
    const bot = {
      modalities: ['text'],
      integrations: ['slack'],
      versions: ['2026-01'],
      context_origin_id: await publicRootId(),
    };
    const res = await api.request<User>('POST', '/v1/managed/users', {
      token: manager.token,
      body: { user_tag: uniqueTag('bot'), is_bot: true, bot },
    });
    expect(res.status).toBe(201);
    expect(res.body.is_bot).toBe(true);
    expect(res.body.bot).toEqual(bot);
    const byTag = await api.request<User>('GET', `/v1/users/by-tag/${res.body.user_tag}`, {
      token: manager.token,
    });
    expect(byTag.body.bot).toEqual(bot);
  });

  it('when is_bot is true without metadata, then bot has empty lists and a null context_origin_id', async () => {
    const manager = await registerWriter(api);
    const res = await api.request<User>('POST', '/v1/managed/users', {
      token: manager.token,
      body: { user_tag: uniqueTag('bot'), is_bot: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.bot).toEqual({ modalities: [], integrations: [], versions: [], context_origin_id: null });
  });

  it('when the manager has partner access, then the new managed user inherits has_api_access', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token);
    const res = await api.request<User>('GET', `/v1/users/by-tag/${bot.user_tag}`, { token: manager.token });
    expect(res.body.has_api_access).toBe(true);
  });

  it('when a plain registered user without messages.write asks, then 403 insufficient_scope and nothing is created', async () => {
    const user = await registerUser(api);
    const tag = uniqueTag('bot');
    const res = await api.request('POST', '/v1/managed/users', {
      token: user.token,
      body: { user_tag: tag },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'insufficient_scope' });
    const lookup = await api.request('GET', `/v1/users/by-tag/${tag}`, { token: user.token });
    expect(lookup.status).toBe(404);
  });

  it('when a managed user (through a delegated token) asks, then 403 managed_user_forbidden', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const token = await delegatedToken(manager.token, bot.uid);
    const tag = uniqueTag('sub');
    const res = await api.request('POST', '/v1/managed/users', { token, body: { user_tag: tag } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'managed_user_forbidden' });
    expect((await api.request('GET', `/v1/users/by-tag/${tag}`, { token: manager.token })).status).toBe(404);
  });

  it('when the tag is taken in another case, then 409 user_tag_taken', async () => {
    const manager = await registerWriter(api);
    const existing = await createManaged(api, manager.token);
    const other = await registerUser(api);
    for (const tag of [existing.user_tag.toUpperCase(), other.tag.toUpperCase(), TEST_ADMIN.tag]) {
      const res = await api.request('POST', '/v1/managed/users', {
        token: manager.token,
        body: { user_tag: tag },
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'user_tag_taken' });
    }
    const list = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(list.body.users.map((u) => u.uid)).toEqual([existing.uid]);
  });

  it('when the body is bad, then 422 in the validation shape', async () => {
    const manager = await registerWriter(api);
    const cases: [unknown, (string | number)[]][] = [
      [{}, ['body', 'user_tag']],
      [{ user_tag: '-bad' }, ['body', 'user_tag']],
      [{ user_tag: 'x' }, ['body', 'user_tag']],
      [{ user_tag: uniqueTag('bot'), password: 'plenty-long-passphrase-42' }, ['body']],
      [{ user_tag: uniqueTag('bot'), is_bot: 'yes' }, ['body', 'is_bot']],
      [{ user_tag: uniqueTag('bot'), display_name: 'x'.repeat(101) }, ['body', 'display_name']],
      [
        { user_tag: uniqueTag('bot'), is_bot: true, bot: { context_origin_id: 'nothex!!' } },
        ['body', 'bot', 'context_origin_id'],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await api.request('POST', '/v1/managed/users', { token: manager.token, body });
      expectValidationError(res, loc);
    }
    const list = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(list.body.users).toEqual([]);
  });

  it('when there are no credentials, then 401', async () => {
    const res = await api.request('POST', '/v1/managed/users', { body: { user_tag: uniqueTag('bot') } });
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/managed/users', () => {
  it('when a manager lists, then only its own managed users, in creation order', async () => {
    const manager = await registerWriter(api);
    const other = await registerWriter(api);
    const first = await createManaged(api, manager.token, { is_bot: true });
    const theirs = await createManaged(api, other.token);
    const second = await createManaged(api, manager.token);
    const third = await createManaged(api, manager.token, { is_bot: true });

    const res = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['users']);
    expect(res.body.users.map((u) => u.uid)).toEqual([first.uid, second.uid, third.uid]);
    for (const user of res.body.users) {
      expect(Object.keys(user).sort()).toEqual(USER_FIELDS);
      expect(user.is_managed).toBe(true);
    }

    const theirList = await api.request<{ users: User[] }>('GET', '/v1/managed/users', {
      token: other.token,
    });
    expect(theirList.body.users.map((u) => u.uid)).toEqual([theirs.uid]);
  });

  it('when the caller manages no one, then an empty list', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: [] });
  });

  it('when the admin lists, then it does not see other managers’ users', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const res = await api.request<{ users: User[] }>('GET', '/v1/managed/users', {
      token: await loginAdmin(api),
    });
    expect(res.status).toBe(200);
    expect(res.body.users.map((u) => u.uid)).not.toContain(bot.uid);
  });

  it('when there are no credentials, then 401', async () => {
    const res = await api.request('GET', '/v1/managed/users');
    expect(res.status).toBe(401);
  });
});
