// Write rate limits per account (SKEIN_RATE_LIMIT_POSTS_PER_MIN, SKEIN_RATE_LIMIT_ACTIONS_PER_MIN):
// posts, pings, recipient adds, uploads and reactions, in REST and GraphQL on one budget per kind, with 429,
// Retry-After and RateLimit-* headers (contract, "General").
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { upload } from '../files/file-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';

const POSTS = 3;
const ACTIONS = 2;
let api: TestServer;

beforeAll(async () => {
  api = await startTestServer({
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: String(POSTS),
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: String(ACTIONS),
  });
});

afterAll(async () => {
  await api.close();
});

function expectRateLimited(res: ApiResponse<unknown>): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

function post(user: TestUser, to: TestUser, content = 'hello') {
  return api.request<{ ok: boolean }[]>('POST', '/v1/messages', {
    token: user.token,
    body: { content, recipients: [to.tag] },
  });
}

const POST_MUTATION = 'mutation($m: [MessageInput!]!) { postMessages(messages: $m) { ok } }';

describe('posts per account', () => {
  it('when an account posts past its budget, then it gets 429 with Retry-After, and every answer counts down in RateLimit-*', async () => {
    const [ada, bob] = [await registerWriter(api), await registerWriter(api)];
    const remaining: string[] = [];
    for (let i = 0; i < POSTS; i++) {
      const res = await post(ada, bob, `post ${i}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(POSTS));
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await post(ada, bob, 'one too many');
    expectRateLimited(refused);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');

    // Nothing of the refused post was stored (the timeline also shows other tests' public posts).
    const timeline = await api.request<{ messages: { content: string; author: { uid: string } }[] }>(
      'GET',
      '/v1/messages/timeline?limit=50',
      { token: bob.token },
    );
    const fromAda = timeline.body.messages.filter((m) => m.author.uid === ada.uid).map((m) => m.content);
    expect(fromAda.sort()).toEqual(['post 0', 'post 1', 'post 2']);
    // Another account has its own budget.
    expect((await post(bob, ada)).status).toBe(200);
  });

  it('when an account spent its budget over REST, then GraphQL refuses its post too (one budget)', async () => {
    const [ada, bob] = [await registerWriter(api), await registerWriter(api)];
    for (let i = 0; i < POSTS; i++) expect((await post(ada, bob)).status).toBe(200);
    const res = await api.graphql(
      POST_MUTATION,
      { m: [{ content: 'through graphql', recipients: [{ user_tag: bob.tag }] }] },
      { token: ada.token },
    );
    expect(res.body.data).toBeNull();
    expect(res.body.errors?.[0]?.extensions?.code).toBe('rate_limited');
  });

  it('when an account posts through GraphQL, then the posts count against the REST budget', async () => {
    const [ada, bob] = [await registerWriter(api), await registerWriter(api)];
    for (let i = 0; i < POSTS; i++) {
      const res = await api.graphql(
        POST_MUTATION,
        { m: [{ content: `graphql ${i}`, recipients: [{ user_tag: bob.tag }] }] },
        { token: ada.token },
      );
      expect(res.body.errors).toBeUndefined();
    }
    expectRateLimited(await post(ada, bob));
  });
});

describe('pings, recipient adds, uploads and reactions per account', () => {
  it('when an account pings past its budget, then the next ping is 429, in REST and GraphQL', async () => {
    const [ada, bob] = [await registerWriter(api), await registerWriter(api)];
    const message = await postMessage(api, ada.token, { content: 'look', recipients: [bob.tag] });
    const ping = () =>
      api.request('POST', `/v1/messages/${message.id}/ping`, {
        token: ada.token,
        body: { recipients: [bob.tag] },
      });
    for (let i = 0; i < ACTIONS; i++) expect((await ping()).status).toBe(200);
    expectRateLimited(await ping());
    const viaGraphql = await api.graphql(
      'mutation($id: String!, $to: [RecipientInput!]!) { pingMessage(message_id: $id, recipients: $to) { message_id } }',
      { id: message.id, to: [{ user_tag: bob.tag }] },
      { token: ada.token },
    );
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('rate_limited');
    // Pings have their own budget: posting still works.
    expect((await post(ada, bob)).status).toBe(200);
  });

  it('when an account adds recipients past its budget, then the next add is 429 and adds nobody', async () => {
    const [ada, bob, cy] = [await registerWriter(api), await registerWriter(api), await registerWriter(api)];
    const message = await postMessage(api, ada.token, { content: 'add people', recipients: [bob.tag] });
    const add = (tag: string) =>
      api.request('POST', '/v1/recipients/add', {
        token: ada.token,
        body: { message_id: message.id, recipients: [tag] },
      });
    for (let i = 0; i < ACTIONS; i++) expect((await add(bob.tag)).status).toBe(200);
    expectRateLimited(await add(cy.tag));
    const seen = await api.request('GET', `/v1/messages/${message.id}`, { token: cy.token });
    expect(seen.status).toBe(404);
  });

  it('when an account uploads past its budget, then the next upload is 429', async () => {
    const ada = await registerWriter(api);
    for (let i = 0; i < ACTIONS; i++) expect((await upload(api, ada.token, `file ${i}`)).status).toBe(200);
    const refused = await upload(api, ada.token, 'one too many');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
  });

  it('when an account adds and removes reactions past its budget, then the next change is 429 in REST and GraphQL and changes nothing', async () => {
    const ada = await registerWriter(api);
    const message = await postMessage(api, ada.token, { content: 'react' });
    const path = (reaction: string) => `/v1/messages/${message.id}/reactions/${encodeURIComponent(reaction)}`;
    expect((await api.request('PUT', path('👍'), { token: ada.token })).status).toBe(200);
    expect((await api.request('DELETE', path('👍'), { token: ada.token })).status).toBe(200);
    expectRateLimited(await api.request('PUT', path('🎉'), { token: ada.token }));
    const viaGraphql = await api.graphql(
      'mutation($id: String!) { react(message_id: $id, reaction: "🎉") { me } }',
      { id: message.id },
      { token: ada.token },
    );
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('rate_limited');
    const seen = await api.request<{ reactions: unknown[] }>('GET', `/v1/messages/${message.id}`, {
      token: ada.token,
    });
    expect(seen.body.reactions).toEqual([]);
  });
});
