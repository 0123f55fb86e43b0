// Security review 2026-12-02 (issue 50): one account must not cost everyone else more than it costs
// itself. The post limit counts messages, not requests (SKEIN_RATE_LIMIT_POSTS_PER_MIN); a post's
// recipients summed over its messages are bounded (SKEIN_MAX_DELIVERIES_PER_POST); an account
// manages a bounded number of users (SKEIN_MAX_MANAGED_USERS); profile edits have a per-account
// budget (SKEIN_RATE_LIMIT_ACTIONS_PER_MIN). Each refusal writes nothing, in REST and GraphQL alike.
// (The ceiling on sockets and subscriptions across instances: test/scale/shared-feed-ceiling.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter, uniqueTag, type TestUser } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';

const POSTS = 5;
const DELIVERIES = 6;
const MANAGED = 3;
const ACTIONS = 3;
/** Posts limited, everything else as the other tests have it. */
let posting: TestServer;
/** The ceilings and the profile budget, posts unlimited. */
let api: TestServer;

beforeAll(async () => {
  [posting, api] = await Promise.all([
    startTestServer({ SKEIN_RATE_LIMIT_POSTS_PER_MIN: String(POSTS) }),
    startTestServer({
      SKEIN_MAX_DELIVERIES_PER_POST: String(DELIVERIES),
      SKEIN_MAX_MANAGED_USERS: String(MANAGED),
      SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: String(ACTIONS),
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([posting?.close(), api?.close()]);
});

function expectRateLimited(res: ApiResponse<unknown>): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

interface CreateResult {
  ok: boolean;
  message?: { id: string; content: string };
}

/** The contents of the messages `user` sent, as its history shows them (roots of its threads). */
async function sentContents(server: TestServer, user: TestUser): Promise<string[]> {
  const res = await server.request<{ messages: { content: string }[] }>(
    'GET',
    '/v1/messages/history?limit=100',
    { token: user.token },
  );
  expect(res.status).toBe(200);
  return res.body.messages.map((m) => m.content).sort();
}

/**
 * `count` messages to `to`, for a body of several: they chain (each a reply to the one before), so
 * the author's history shows the first.
 */
function chain(prefix: string, count: number, to: TestUser[] = []) {
  return Array.from({ length: count }, (_, i) => ({
    content: `${prefix} ${i}`,
    recipients: to.map((user) => user.tag),
  }));
}

const POST_MUTATION =
  'mutation($m: [MessageInput!]!) { postMessages(messages: $m) { ok message { id content } } }';

describe('POST /v1/messages counts messages against SKEIN_RATE_LIMIT_POSTS_PER_MIN', () => {
  it('when a request carries several messages, then each counts, and one that does not fit is 429 with Retry-After and writes nothing', async () => {
    const ada = await registerWriter(posting);
    const first = await posting.request<CreateResult[]>('POST', '/v1/messages', {
      token: ada.token,
      body: { messages: chain('first', 3) },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe(String(POSTS));
    expect(first.headers.get('ratelimit-remaining')).toBe('2');

    const refused = await posting.request('POST', '/v1/messages', {
      token: ada.token,
      body: { messages: chain('refused', 3) },
    });
    expectRateLimited(refused);
    // What is left is still there for a smaller request: the refused one spent nothing.
    expect(refused.headers.get('ratelimit-remaining')).toBe('2');
    expect(await sentContents(posting, ada)).toEqual(['first 0']);

    const fits = await posting.request<CreateResult[]>('POST', '/v1/messages', {
      token: ada.token,
      body: [{ content: 'fits 0' }, { content: 'fits 1' }],
    });
    expect(fits.status).toBe(200);
    expect(fits.headers.get('ratelimit-remaining')).toBe('0');
    expectRateLimited(
      await posting.request('POST', '/v1/messages', { token: ada.token, body: { content: 'x' } }),
    );
  });

  it('when a request carries more messages than the whole budget, then it is 429 saying so, and nothing is written', async () => {
    const ada = await registerWriter(posting);
    const refused = await posting.request<{ detail: string }>('POST', '/v1/messages', {
      token: ada.token,
      body: chain('too many', POSTS + 1),
    });
    expectRateLimited(refused);
    expect(refused.body.detail).toMatch(/smaller parts/);
    expect(refused.headers.get('ratelimit-remaining')).toBe(String(POSTS));
    expect(await sentContents(posting, ada)).toEqual([]);
  });

  it('when a GraphQL postMessages carries more messages than are left, then it is refused with rate_limited and writes nothing; its messages count against the REST budget', async () => {
    const [ada, bob] = [await registerWriter(posting), await registerWriter(posting)];
    const three = chain('graphql', 3).map(({ content }) => ({
      content,
      recipients: [{ user_tag: bob.tag }],
    }));
    const ok = await posting.graphql(POST_MUTATION, { m: three }, { token: ada.token });
    expect(ok.body.errors).toBeUndefined();

    const refused = await posting.graphql(POST_MUTATION, { m: three }, { token: ada.token });
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(await sentContents(posting, ada)).toEqual(['graphql 0']);

    const rest = await posting.request('POST', '/v1/messages', {
      token: ada.token,
      body: chain('rest', 3),
    });
    expectRateLimited(rest);
    expect(rest.headers.get('ratelimit-remaining')).toBe('2');
  });
});

describe('POST /v1/messages bounds recipients × messages (SKEIN_MAX_DELIVERIES_PER_POST)', () => {
  it('when the recipients summed over the messages exceed the bound, then it is 422 validation_error before anything is written; at the bound it posts', async () => {
    const ada = await registerWriter(api);
    const to = [await registerWriter(api), await registerWriter(api), await registerWriter(api)];
    const refused = await api.request<{ detail: { type: string; loc: string[] }[]; code: string }>(
      'POST',
      '/v1/messages',
      { token: ada.token, body: { messages: chain('nine', 3, to) } },
    );
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      code: 'validation_error',
      detail: [{ loc: ['body'], msg: expect.stringMatching(/at most 6/), type: 'too_many_deliveries' }],
    });
    expect(await sentContents(api, ada)).toEqual([]);
    for (const user of to) {
      const inbox = await api.request<{ messages: unknown[] }>('GET', '/v1/messages/inbox', {
        token: user.token,
      });
      expect(inbox.body.messages).toEqual([]);
    }

    const six = await api.request<CreateResult[]>('POST', '/v1/messages', {
      token: ada.token,
      body: { messages: chain('six', 2, to) },
    });
    expect(six.status).toBe(200);
    expect(six.body.map((r) => r.ok)).toEqual([true, true]);
  });

  it('when replies with "audience": "parent" take the parent\'s recipients past the bound, then it is 422 and nothing is written', async () => {
    const ada = await registerWriter(api);
    const to = [await registerWriter(api), await registerWriter(api), await registerWriter(api)];
    // Three named, three more for each reply that takes its parent's CC recipients: nine in all.
    const refused = await api.request<{ detail: { type: string }[]; code: string }>('POST', '/v1/messages', {
      token: ada.token,
      body: [
        { content: 'root', recipients: to.map((user) => user.tag) },
        { content: 'reply 1', audience: 'parent' },
        { content: 'reply 2', audience: 'parent' },
      ],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('validation_error');
    expect(refused.body.detail[0]?.type).toBe('too_many_deliveries');
    expect(await sentContents(api, ada)).toEqual([]);
  });

  it('when a GraphQL postMessages exceeds the bound, then it is refused with validation_error and writes nothing', async () => {
    const ada = await registerWriter(api);
    const to = [await registerWriter(api), await registerWriter(api), await registerWriter(api)];
    const messages = chain('graphql nine', 3).map(({ content }) => ({
      content,
      recipients: to.map((user) => ({ user_tag: user.tag })),
    }));
    const refused = await api.graphql(POST_MUTATION, { m: messages }, { token: ada.token });
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    expect(await sentContents(api, ada)).toEqual([]);
  });
});

describe('POST /v1/managed/users past SKEIN_MAX_MANAGED_USERS', () => {
  const create = (manager: TestUser, tag = uniqueTag('bot')) =>
    api.request<{ uid: string; code?: string; detail?: string }>('POST', '/v1/managed/users', {
      token: manager.token,
      body: { user_tag: tag, is_bot: true },
    });
  const managedTags = async (manager: TestUser) =>
    (
      await api.request<{ users: { user_tag: string }[] }>('GET', '/v1/managed/users', {
        token: manager.token,
      })
    ).body.users.map((u) => u.user_tag);

  it('when an account already manages the most it may, then another is 422 too_many_managed_users and is not created; deleting one frees a place', async () => {
    const manager = await registerWriter(api);
    const made: { uid: string }[] = [];
    for (let i = 0; i < MANAGED; i++) {
      const res = await create(manager);
      expect(res.status).toBe(201);
      made.push(res.body);
    }
    const tag = uniqueTag('bot');
    const refused = await create(manager, tag);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ code: 'too_many_managed_users', detail: expect.any(String) });
    expect(await managedTags(manager)).not.toContain(tag);
    expect((await api.request('GET', `/v1/users/by-tag/${tag}`, { token: manager.token })).status).toBe(404);

    // GraphQL is the same use case: refused too.
    const viaGraphql = await api.graphql(
      'mutation($input: ManagedUserCreateInput!) { createManagedUser(input: $input) { uid } }',
      { input: { user_tag: uniqueTag('bot') } },
      { token: manager.token },
    );
    expect(viaGraphql.body.errors?.[0]?.extensions).toMatchObject({
      code: 'too_many_managed_users',
      status: 422,
    });
    expect(await managedTags(manager)).toHaveLength(MANAGED);

    expect(
      (await api.request('DELETE', `/v1/managed/users/${made[0]!.uid}`, { token: manager.token })).status,
    ).toBe(200);
    expect((await create(manager, tag)).status).toBe(201);
  });

  it('when one account races creations past the ceiling, then exactly the ceiling is created', async () => {
    const manager = await registerWriter(api);
    const answers = await Promise.all(Array.from({ length: MANAGED + 3 }, () => create(manager)));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(MANAGED);
    expect(answers.filter((res) => res.status !== 201).map((res) => res.body.code)).toEqual(
      Array.from({ length: 3 }, () => 'too_many_managed_users'),
    );
    expect(await managedTags(manager)).toHaveLength(MANAGED);
  });
});

describe('POST /v1/users/profile per account (SKEIN_RATE_LIMIT_ACTIONS_PER_MIN)', () => {
  const edit = (user: TestUser, display_name: string) =>
    api.request('POST', '/v1/users/profile', { token: user.token, body: { display_name } });
  const displayName = async (user: TestUser) =>
    (await api.request<{ display_name: string | null }>('GET', '/v1/users/me', { token: user.token })).body
      .display_name;

  it('when an account edits its profile past its budget, then it gets 429 with Retry-After, every answer counts down in RateLimit-*, and the refused edit changes nothing', async () => {
    const ada = await registerWriter(api);
    const remaining: (string | null)[] = [];
    for (let i = 0; i < ACTIONS; i++) {
      const res = await edit(ada, `name ${i}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(ACTIONS));
      remaining.push(res.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expectRateLimited(await edit(ada, 'one too many'));
    expect(await displayName(ada)).toBe(`name ${ACTIONS - 1}`);

    // GraphQL shares the budget.
    const viaGraphql = await api.graphql(
      'mutation($input: ProfileUpdateInput!) { updateProfile(input: $input) { display_name } }',
      { input: { display_name: 'through graphql' } },
      { token: ada.token },
    );
    expect(viaGraphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(await displayName(ada)).toBe(`name ${ACTIONS - 1}`);
    // Another account has its own budget, and posting is another kind of write.
    expect((await edit(await registerWriter(api), 'someone else')).status).toBe(200);
    await postMessage(api, ada.token, { content: 'still posting' });
  });

  it('when an account edits its profile through GraphQL, then the edits count against the REST budget', async () => {
    const ada = await registerWriter(api);
    for (let i = 0; i < ACTIONS; i++) {
      const res = await api.graphql(
        'mutation($input: ProfileUpdateInput!) { updateProfile(input: $input) { display_name } }',
        { input: { display_name: `graphql ${i}` } },
        { token: ada.token },
      );
      expect(res.body.errors).toBeUndefined();
    }
    expectRateLimited(await edit(ada, 'rest'));
    expect(await displayName(ada)).toBe(`graphql ${ACTIONS - 1}`);
  });

  it('when a manager edits its managed users past its budget, then PATCH /v1/managed/users/{uid} is 429 too', async () => {
    const manager = await registerWriter(api);
    const bot = (
      await api.request<{ uid: string }>('POST', '/v1/managed/users', {
        token: manager.token,
        body: { user_tag: uniqueTag('bot') },
      })
    ).body;
    const patch = (display_name: string) =>
      api.request('PATCH', `/v1/managed/users/${bot.uid}`, { token: manager.token, body: { display_name } });
    for (let i = 0; i < ACTIONS; i++) expect((await patch(`bot ${i}`)).status).toBe(200);
    expectRateLimited(await patch('one too many'));
  });
});
