// GET /v1/messages/similar/{message_id} and /v1/messages/search/similar/{message_id}: ranking by the
// n-gram overlap score on crafted messages, limit and max_n bounds, visibility of the source and of
// the candidates, the bounds on the scoring work; and GraphQL Query.similarMessages.
import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  SIMILAR_CANDIDATE_CHARS,
  SIMILAR_CANDIDATE_TOKENS,
  SIMILAR_CANDIDATES,
  SIMILAR_SOURCE_TOKENS,
} from '../../src/components/search/find-similar-messages.js';
import { ngramProfile, similarityScore, tokenize } from '../../src/components/search/similarity.js';
import { grant, postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  alice = await registerWriter(api);
  bob = await registerWriter(api);
});
afterAll(async () => {
  await api.close();
});

interface Similar {
  message: { id: string; content: string };
  score: number;
}

/** Words no other test uses, so the shared store cannot disturb the candidates. */
function words(count: number): string[] {
  return Array.from({ length: count }, () => `s${randomBytes(5).toString('hex')}`);
}

async function similar(id: string, params: Record<string, string | undefined> = {}, token = alice.token) {
  const defined = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const query = new URLSearchParams(defined).toString();
  return api.request<Similar[]>('GET', `/v1/messages/similar/${id}${query ? `?${query}` : ''}`, { token });
}

/** A source with four candidates of known scores (see each line). */
async function craft() {
  const [a, b, c, d] = words(4);
  const source = await postMessage(api, alice.token, { content: `${a} ${b} ${c}` });
  // max_n 3: n=1 a,b,c → 3; n=2 "a b","b c" → 2·4 = 8; n=3 "a b c" → 9. Total 20.
  const best = await postMessage(api, alice.token, { content: `${a} ${b} ${c} ${d}` });
  // n=1 a,b → 2; n=2 "a b" → 4. Total 6 (max_n 1: 2).
  const middle = await postMessage(api, alice.token, { content: `${a} ${b} filler` });
  // n=1 c,a → 2; "c a" is not in the source. Total 2 (max_n 1: 2).
  const low = await postMessage(api, alice.token, { content: `${c}, ${a}!` });
  // Shares nothing: left out.
  await postMessage(api, alice.token, { content: `${d} alone` });
  return { source, best, middle, low, words: { a, b, c, d } };
}

describe('GET /v1/messages/similar/{message_id}', () => {
  it('when candidates overlap the source, then they come best first with the exact scores', async () => {
    const { source, best, middle, low } = await craft();
    const res = await similar(source.id);
    expect(res.status).toBe(200);
    expect(res.body.map((s) => [s.message.id, s.score])).toEqual([
      [best.id, 20],
      [middle.id, 6],
      [low.id, 2],
    ]);
    expect(res.body[0]!.message).toMatchObject({ id: best.id, author: { uid: alice.uid } });
  });

  it('when max_n is 1, then only shared words count and equal scores come newest first', async () => {
    const { source, best, middle, low } = await craft();
    const res = await similar(source.id, { max_n: '1' });
    // best 3; middle and low 2 each, low being newer.
    expect(res.body.map((s) => [s.message.id, s.score])).toEqual([
      [best.id, 3],
      [low.id, 2],
      [middle.id, 2],
    ]);
  });

  it('when repeated words are shared, then repetition amplifies the score', async () => {
    const [x, y] = words(2);
    const source = await postMessage(api, alice.token, { content: `${x} ${x} ${x} ${y}` });
    // n=1: x min(3,2) = 2 → 2; n=2: "x x" min(2,1) = 1 → 4. Total 6.
    const twice = await postMessage(api, alice.token, { content: `${x} ${x}` });
    // n=1: x min(3,1) = 1, y 1 → 2. Total 2.
    const once = await postMessage(api, alice.token, { content: `${y} then ${x}` });
    const res = await similar(source.id);
    expect(res.body.map((s) => [s.message.id, s.score])).toEqual([
      [twice.id, 6],
      [once.id, 2],
    ]);
  });

  it('when limit is given, then at most that many come back; the other path answers the same', async () => {
    const { source, best, middle } = await craft();
    const one = await similar(source.id, { limit: '2' });
    expect(one.body.map((s) => s.message.id)).toEqual([best.id, middle.id]);
    const other = await api.request<Similar[]>('GET', `/v1/messages/search/similar/${source.id}?limit=2`, {
      token: alice.token,
    });
    expect(other.status).toBe(200);
    expect(other.body).toEqual(one.body);
  });

  it('when limit or max_n is out of range, or the id is malformed, then the answer is 422', async () => {
    const { source } = await craft();
    for (const params of [{ limit: '0' }, { limit: '51' }, { max_n: '0' }, { max_n: '11' }, { max_n: 'x' }]) {
      const res = await similar(source.id, params);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_error' });
    }
    for (const params of [{ limit: '50' }, { max_n: '10' }, { limit: '1', max_n: '1' }]) {
      expect((await similar(source.id, params)).status).toBe(200);
    }
    expect((await similar('NOT-AN-ID')).status).toBe(422);
  });

  it('when the source is invisible or missing, then the same 404 comes back', async () => {
    const hidden = await postMessage(api, alice.token, { content: `hidden ${words(1)[0]}` });
    const invisible = await similar(hidden.id, {}, bob.token);
    const missing = await similar('00000000', {}, bob.token);
    expect(invisible.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(invisible.body).toEqual(missing.body);
  });

  it('when candidates are invisible to the caller, then they are left out', async () => {
    const [a, b] = words(2);
    const source = await postMessage(api, bob.token, { content: `${a} ${b}`, public: true });
    const open = await postMessage(api, alice.token, { content: `${a} ${b}`, public: true });
    const shared = await postMessage(api, alice.token, {
      content: `${a} ${b} bcc`,
      recipients: [{ user_tag: bob.tag, public: false }],
    });
    const secret = await postMessage(api, alice.token, { content: `${a} ${b} secret` });

    const forBob = await similar(source.id, {}, bob.token);
    expect(forBob.body.map((s) => s.message.id).sort()).toEqual([open.id, shared.id].sort());
    const forAlice = await similar(source.id, {}, alice.token);
    expect(forAlice.body.map((s) => s.message.id).sort()).toEqual([open.id, shared.id, secret.id].sort());
    const carol = await registerUser(api);
    const forCarol = await similar(source.id, {}, carol.token);
    expect(forCarol.body.map((s) => s.message.id)).toEqual([open.id]);
  });

  it('when the source has no word, then nothing is similar', async () => {
    const source = await postMessage(api, alice.token, { content: '?!' });
    const res = await similar(source.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('when the caller is anonymous or lacks messages.read, then 401 or 403', async () => {
    const { source } = await craft();
    const anonymous = await api.request('GET', `/v1/messages/similar/${source.id}`);
    expect(anonymous.status).toBe(401);
    const reader = await registerUser(api);
    await grant(api, reader.uid, { scopes: [] });
    const denied = await similar(source.id, {}, reader.token);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'insufficient_scope' });
  });
});

describe('GET /v1/messages/similar/{message_id} bounds (security finding #1)', () => {
  /** The documented score: the source's first tokens against a candidate's first characters and tokens. */
  function boundedScore(source: string, candidate: string, maxN: number): number {
    const profile = ngramProfile(tokenize(source).slice(0, SIMILAR_SOURCE_TOKENS), maxN);
    const tokens = tokenize(candidate.slice(0, SIMILAR_CANDIDATE_CHARS)).slice(0, SIMILAR_CANDIDATE_TOKENS);
    return similarityScore(profile, tokens);
  }

  it('when text lies beyond the documented token and character caps, then it does not count', async () => {
    const [a, b, c, e, f] = words(5);
    const triple = `${a} ${b} ${c}`;
    // The source's tokens past SIMILAR_SOURCE_TOKENS (here `e`) are not compared.
    const source = await postMessage(api, alice.token, {
      content: `${`${triple} `.repeat(50)}${`${f} `.repeat(SIMILAR_SOURCE_TOKENS)}${e}`,
    });
    // Past the token cap (short filler tokens, well within the character cap): only the first triple counts.
    const pastTokens = await postMessage(api, alice.token, {
      content: `${triple} ${'7 '.repeat(SIMILAR_CANDIDATE_TOKENS)}${` ${triple}`.repeat(49)}`,
    });
    // Past the character cap (one long filler word): only the first triple counts.
    const pastChars = await postMessage(api, alice.token, {
      content: `${triple} ${'x'.repeat(SIMILAR_CANDIDATE_CHARS)}${` ${triple}`.repeat(49)}`,
    });
    // Shares only a source token beyond the source cap: scores 0, left out.
    await postMessage(api, alice.token, { content: `${e} ${e}` });

    const res = await similar(source.id, { max_n: '3' });
    expect(res.status).toBe(200);
    // Each: a,b,c → 3; "a b","b c" → 8; "a b c" → 9. Equal scores newest first.
    expect(res.body.map((s) => [s.message.id, s.score])).toEqual([
      [pastChars.id, 20],
      [pastTokens.id, 20],
    ]);
  });

  it('when the largest inputs meet many long messages, then /healthz keeps answering and the capped scores are exact', async () => {
    const vocabulary = words(40);
    const text = (chars: number) => {
      const picked: string[] = [];
      for (let length = 0; length < chars; length += 12)
        picked.push(vocabulary[randomInt(vocabulary.length)]!);
      return picked.join(' ');
    };
    const source = await postMessage(api, alice.token, { content: text(60_000) });
    const seeded = new Map<string, string>();
    // More candidates than are scored, each far longer than the scored prefix.
    for (let batch = 0; batch < 11; batch++) {
      const inputs = Array.from({ length: 10 }, () => ({ content: text(60_000) }));
      const res = await api.request<{ ok: boolean; message: { id: string; content: string } }[]>(
        'POST',
        '/v1/messages',
        { token: alice.token, body: inputs },
      );
      expect(res.status).toBe(200);
      for (const item of res.body) seeded.set(item.message.id, item.message.content);
    }
    expect(seeded.size).toBeGreaterThan(SIMILAR_CANDIDATES);

    const call = similar(source.id, { max_n: '10', limit: '50' });
    const health = await Promise.all(Array.from({ length: 5 }, () => api.request('GET', '/healthz')));
    const res = await call;
    expect(health.map((h) => h.status)).toEqual([200, 200, 200, 200, 200]);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(50);
    for (const { message, score } of res.body) {
      expect(seeded.has(message.id)).toBe(true);
      expect(score).toBe(boundedScore(source.content as string, seeded.get(message.id)!, 10));
    }
    const scores = res.body.map((s) => s.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });

  it('when the OpenAPI document describes similar, then it names the caps', async () => {
    const res = await api.request<{ paths: Record<string, { get?: { description?: string } }> }>(
      'GET',
      '/v1/openapi.json',
    );
    const description = res.body.paths['/v1/messages/similar/{message_id}']!.get!.description!;
    expect(description).toContain(`first ${SIMILAR_SOURCE_TOKENS} tokens`);
    expect(description).toContain(
      `first ${SIMILAR_CANDIDATE_TOKENS} tokens within its first ${SIMILAR_CANDIDATE_CHARS} characters`,
    );
    expect(description).toContain(`${SIMILAR_CANDIDATES} best ones you may see are scored`);
  });
});

describe('GraphQL Query.similarMessages', () => {
  it('when asked, then the REST ranking and scores come back', async () => {
    const { source, best, middle, low } = await craft();
    const res = await api.graphql<{ similarMessages: Similar[] }>(
      'query($id: String!) { similarMessages(message_id: $id, limit: 3, max_n: 3) { score message { id content } } }',
      { id: source.id },
      { token: alice.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.similarMessages.map((s) => [s.message.id, s.score])).toEqual([
      [best.id, 20],
      [middle.id, 6],
      [low.id, 2],
    ]);
  });

  it('when arguments are out of range, the source is invisible, or no one is signed in, then the REST errors come back', async () => {
    const { source } = await craft();
    const query = 'query($id: String!, $n: Int) { similarMessages(message_id: $id, max_n: $n) { score } }';
    const bad = await api.graphql(query, { id: source.id, n: 11 }, { token: alice.token });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    const hidden = await api.graphql(query, { id: source.id }, { token: bob.token });
    expect(hidden.body.errors?.[0]?.extensions).toMatchObject({ code: 'message_not_found', status: 404 });
    const anonymous = await api.graphql(query, { id: source.id });
    expect(anonymous.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_authenticated', status: 401 });
  });
});
