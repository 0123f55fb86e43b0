// GET /v1/users/search?q=&limit= and the searchUsers GraphQL field: users by tag prefix (the exact
// tag first), then by display-name word prefixes, in the public UserOutput shape; banned accounts
// left out. Every test searches for a stem of its own, so users of other tests never match.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  STRONG_PASSWORD,
  createKey,
  createManaged,
  grant,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { USER_FIELDS } from '../support/api-types.js';

let api: TestServer;
let viewer: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  viewer = await registerUser(api);
});
afterAll(async () => {
  await api.close();
});

interface User {
  uid: string;
  user_tag: string;
  display_name: string | null;
  [field: string]: unknown;
}

interface ValidationBody {
  code: string;
  detail: { loc: (string | number)[]; msg: string; type: string }[];
}

function search(query: Record<string, string>, token: string | undefined = viewer.token) {
  return api.request<{ users: User[] }>('GET', `/v1/users/search?${new URLSearchParams(query).toString()}`, {
    token,
  });
}

/** The tags a search answers, in order; fails on anything but 200. */
async function tagsFound(query: Record<string, string>, token?: string): Promise<string[]> {
  const res = await search(query, token);
  expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
    status: 200,
    body: 'ok',
  });
  return res.body.users.map((user) => user.user_tag);
}

/** A registered account with a display name (registration is the path most users take). */
async function registerNamed(tag: string, displayName: string): Promise<TestUser> {
  const res = await api.request<{ access_token: string }>('POST', '/v1/auth/register', {
    body: { user_tag: tag, password: STRONG_PASSWORD, display_name: displayName },
  });
  expect(res.status).toBe(200);
  const me = await api.request<{ uid: string }>('GET', '/v1/users/me', { token: res.body.access_token });
  return { uid: me.body.uid, tag, password: STRONG_PASSWORD, token: res.body.access_token };
}

/** A stem no other test uses: a letter and 10 hex digits, one word to the full-text index. */
const newStem = () => uniqueTag('s');

function expectValidationError(res: { status: number; body: unknown }, loc: string[]): void {
  expect(res.status).toBe(422);
  const body = res.body as ValidationBody;
  expect(body.code).toBe('validation_error');
  expect(body.detail).toEqual(
    expect.arrayContaining([{ loc, msg: expect.any(String), type: expect.any(String) }]),
  );
}

describe('GET /v1/users/search: matching and order', () => {
  let stem: string;
  let manager: TestUser;
  beforeAll(async () => {
    stem = newStem();
    manager = await registerWriter(api);
    // Created out of order, so that the answer's order comes from the rules, not from creation.
    await createManaged(api, manager.token, { user_tag: `${stem}b`, display_name: 'Bee' });
    await createManaged(api, manager.token, { user_tag: uniqueTag('z'), display_name: `Zed ${stem}ish` });
    await createManaged(api, manager.token, { user_tag: `${stem}a_x`, display_name: `Alpha ${stem}` });
    await createManaged(api, manager.token, { user_tag: uniqueTag('y'), display_name: `alpha ${stem}2` });
    await createManaged(api, manager.token, { user_tag: uniqueTag('m'), display_name: `Mid x${stem}` });
    await registerNamed(stem.toUpperCase(), 'Exact Match');
  });

  it('when q is a tag and a word prefix, then the exact tag, the tag prefixes by tag, then the display names by name', async () => {
    const found = await search({ q: stem });
    expect(found.status).toBe(200);
    expect(
      found.body.users.map((user) => [user.user_tag.toLowerCase().startsWith(stem), user.display_name]),
    ).toEqual([
      [true, 'Exact Match'],
      // `${stem}a_x` is named `Alpha ${stem}` too: it is listed once, among the tags.
      [true, `Alpha ${stem}`],
      [true, 'Bee'],
      [false, `alpha ${stem}2`],
      [false, `Zed ${stem}ish`],
    ]);
    expect(found.body.users[0]!.user_tag).toBe(stem.toUpperCase());
  });

  it('when q differs in case, or carries a leading @ and whitespace, then the same users in the same order', async () => {
    const expected = await tagsFound({ q: stem });
    expect(await tagsFound({ q: stem.toUpperCase() })).toEqual(expected);
    expect(await tagsFound({ q: `  @${stem}  ` })).toEqual(expected);
    expect(await tagsFound({ q: `ZED ${stem.toUpperCase()}IS` })).toHaveLength(1);
  });

  it('when q is only the start of the tags, then every tag starting with it matches, in tag order', async () => {
    const start = stem.slice(0, -1);
    const found = await tagsFound({ q: start });
    expect(found.slice(0, 3)).toEqual([stem.toUpperCase(), `${stem}a_x`, `${stem}b`]);
    // Display names have the stem as a word prefix too: `${start}` begins "…ish" and "…2".
    expect(found).toHaveLength(5);
  });

  it('when q has several words, then a display name must have a word starting with each of them', async () => {
    const res = await search({ q: `alp ${stem}` });
    expect(res.status).toBe(200);
    expect(res.body.users.map((user) => user.display_name).sort()).toEqual([
      `Alpha ${stem}`,
      `alpha ${stem}2`,
    ]);
    expect(await tagsFound({ q: `zed alp ${stem}` })).toEqual([]);
  });

  it('when q occurs inside a word of a display name but starts none, then that user is not found', async () => {
    const res = await search({ q: stem });
    expect(res.body.users.map((user) => user.display_name)).not.toContain(`Mid x${stem}`);
    expect(await tagsFound({ q: `x${stem}` })).toHaveLength(1);
  });

  it('when a display name changes, then the new name is found at once and the old one no longer', async () => {
    const stem = newStem();
    const user = await registerNamed(uniqueTag('r'), `Before ${stem}old`);
    expect(await tagsFound({ q: `${stem}old` })).toEqual([user.tag]);
    const edit = await api.request('POST', '/v1/users/profile', {
      token: user.token,
      body: { display_name: `After ${stem}new` },
    });
    expect(edit.status).toBe(200);
    expect(await tagsFound({ q: `${stem}old` })).toEqual([]);
    expect(await tagsFound({ q: `${stem}new` })).toEqual([user.tag]);
  });

  it('when names have accents, apostrophes or hyphens, then each word of the name is found by its start', async () => {
    const stem = newStem();
    const user = await registerNamed(uniqueTag('w'), `Zoë O’Brien-Ñúñez ${stem}w`);
    for (const q of ['zoë', 'o’bri', 'ñúñ', 'ZOË O’B']) {
      expect({ q, found: await tagsFound({ q: `${q} ${stem}w` }) }).toEqual({ q, found: [user.tag] });
    }
  });
});

describe('GET /v1/users/search: limit', () => {
  let stem: string;
  beforeAll(async () => {
    stem = newStem();
    const manager = await registerWriter(api);
    for (let i = 0; i < 11; i++) {
      await createManaged(api, manager.token, { user_tag: `${stem}${String(i).padStart(2, '0')}` });
    }
    await createManaged(api, manager.token, { user_tag: uniqueTag('n'), display_name: `Named ${stem}` });
  });

  it('when no limit is given, then at most 10 users, the first ten tags', async () => {
    const found = await tagsFound({ q: stem });
    expect(found).toEqual(Array.from({ length: 10 }, (_, i) => `${stem}${String(i).padStart(2, '0')}`));
  });

  it('when a limit is given, then at most that many, in the same order', async () => {
    expect(await tagsFound({ q: stem, limit: '2' })).toEqual([`${stem}00`, `${stem}01`]);
    const all = await tagsFound({ q: stem, limit: '50' });
    expect(all).toHaveLength(12);
    expect(all.slice(0, 11)).toEqual(
      Array.from({ length: 11 }, (_, i) => `${stem}${String(i).padStart(2, '0')}`),
    );
  });

  it('when limit is 0, 51, a fraction or not a number, then 422 validation_error on limit', async () => {
    for (const limit of ['0', '51', '1.5', 'ten', '']) {
      expectValidationError(await search({ q: stem, limit }), ['query', 'limit']);
    }
  });
});

describe('GET /v1/users/search: what a user shows', () => {
  it('when a user with an email, a bio and scopes is found, then only the UserOutput of by-tag shows', async () => {
    const stem = newStem();
    const email = `${stem}@example.com`;
    const user = await registerUser(api, { tag: stem, email });
    await api.request('POST', '/v1/users/profile', { token: user.token, body: { bio: 'Writes programs.' } });
    const found = await search({ q: stem });
    expect(found.status).toBe(200);
    expect(found.body.users).toHaveLength(1);
    expect(Object.keys(found.body.users[0]!).sort()).toEqual(USER_FIELDS);
    expect(JSON.stringify(found.body)).not.toContain(email);
    const byTag = await api.request('GET', `/v1/users/by-tag/${stem}`, { token: viewer.token });
    expect(found.body.users[0]).toEqual(byTag.body);
  });

  it('when a search finds nothing, then 200 with an empty list', async () => {
    const res = await search({ q: newStem() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: [] });
  });
});

describe('GET /v1/users/search: banned accounts', () => {
  it('when an administrator took every scope from an account, then it is left out; with messages.read only, it stays', async () => {
    const stem = newStem();
    const banned = await registerNamed(`${stem}1`, `Banned ${stem}`);
    const reader = await registerNamed(`${stem}2`, `Reader ${stem}`);
    expect(await tagsFound({ q: stem })).toEqual([banned.tag, reader.tag]);
    await grant(api, banned.uid, { scopes: [] });
    await grant(api, reader.uid, { scopes: ['messages.read'] });
    expect(await tagsFound({ q: stem })).toEqual([reader.tag]);
    expect(await tagsFound({ q: `banned ${stem}` })).toEqual([]);
  });

  it('when the only manager of a bot is banned, then the bot is left out too', async () => {
    const stem = newStem();
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token, { user_tag: `${stem}bot`, is_bot: true });
    expect(await tagsFound({ q: stem })).toEqual([bot.user_tag]);
    await grant(api, manager.uid, { scopes: [] });
    expect(await tagsFound({ q: stem })).toEqual([]);
  });
});

describe('GET /v1/users/search: validation and authentication', () => {
  it('when q is missing, empty, blank or only an @, then 422 validation_error on q', async () => {
    expectValidationError(await search({}), ['query', 'q']);
    for (const q of ['', '   ', '@', ' @ ']) {
      expectValidationError(await search({ q }), ['query', 'q']);
    }
  });

  it('when q is over 64 characters once trimmed, then 422; 64 with whitespace around is accepted', async () => {
    expectValidationError(await search({ q: 'a'.repeat(65) }), ['query', 'q']);
    expect((await search({ q: ` ${'a'.repeat(64)} ` })).status).toBe(200);
    expect((await search({ q: `@${'a'.repeat(64)}` })).status).toBe(200);
  });

  it('when q is given twice, then 422 on q', async () => {
    const res = await api.request('GET', '/v1/users/search?q=ada&q=bob', { token: viewer.token });
    expectValidationError(res, ['query', 'q']);
  });

  it('when q is Lucene syntax or odd characters (NUL, combining marks), then it is taken as plain words and nothing fails', async () => {
    for (const q of ['*', 'a OR b', '"', '(', 'x:y', 'a\\', '-', '~1', 'AND', 'nul\u0000', 'e\u0301\u200f']) {
      const res = await search({ q });
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
    }
  });

  it('when there are no credentials, then 401 not_authenticated', async () => {
    const res = await api.request('GET', '/v1/users/search?q=ada');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'not_authenticated' });
  });

  it('when the caller holds only messages.read, or uses a key capped to it, then it may search, as it may look up a tag', async () => {
    const stem = newStem();
    const target = await registerUser(api, { tag: stem });
    const unverified = await registerUser(api);
    expect(await tagsFound({ q: stem }, unverified.token)).toEqual([target.tag]);
    const writer = await registerWriter(api, { apiAccess: true });
    const key = await createKey(api, writer.token, { scopes_cap: 'messages.read' });
    const res = await api.request<{ users: User[] }>('GET', `/v1/users/search?q=${stem}`, {
      apiKey: key.key,
    });
    expect(res.status).toBe(200);
    expect(res.body.users.map((user) => user.uid)).toEqual([target.uid]);
  });
});

describe('searchUsers (GraphQL)', () => {
  const SEARCH = `query ($q: String!, $limit: Int) {
    searchUsers(q: $q, limit: $limit) {
      uid user_tag display_name bio is_managed is_bot has_api_access created_at deactivated_at
      bot { modalities integrations versions context_origin_id }
    }
  }`;

  it('when asked over REST and GraphQL, then the users are equal, with and without a limit', async () => {
    const stem = newStem();
    const manager = await registerWriter(api);
    await createManaged(api, manager.token, { user_tag: `${stem}b`, is_bot: true });
    await createManaged(api, manager.token, { user_tag: uniqueTag('g'), display_name: `Gee ${stem}` });
    await registerNamed(stem, 'Exact');
    for (const limit of [undefined, 2]) {
      const rest = await search(limit === undefined ? { q: stem } : { q: stem, limit: String(limit) });
      const graph = await api.graphql<{ searchUsers: unknown[] }>(
        SEARCH,
        { q: stem.toUpperCase(), limit: limit ?? null },
        { token: viewer.token },
      );
      expect(rest.status).toBe(200);
      expect(graph.body.errors).toBeUndefined();
      expect(graph.body.data!.searchUsers).toEqual(rest.body.users);
      expect(rest.body.users).toHaveLength(limit ?? 3);
    }
  });

  it('when q is blank or limit out of range, then validation_error 422 with the args location', async () => {
    for (const [variables, loc] of [
      [{ q: '  ' }, ['args', 'q']],
      [{ q: 'ada', limit: 51 }, ['args', 'limit']],
    ] as const) {
      const res = await api.graphql(SEARCH, variables, { token: viewer.token });
      const error = res.body.errors?.[0];
      expect(error?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
      expect(error?.extensions?.detail).toEqual([expect.objectContaining({ loc })]);
    }
  });

  it('when unauthenticated, then not_authenticated 401', async () => {
    const res = await api.graphql(SEARCH, { q: 'ada' });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_authenticated', status: 401 });
  });
});
