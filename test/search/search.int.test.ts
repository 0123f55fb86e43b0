// GET /v1/messages/search: content words through the full-text index, tags with match=any|all,
// both combined, visibility (anonymous, author, BCC recipient, outsiders), pagination and
// validation, user text full of Lucene syntax, a ranking that hidden messages cannot move; and
// GraphQL Query.searchMessages.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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

interface Page {
  messages: { id: string; content: string; tags: string[] }[];
  skip: number;
  limit: number;
  has_more: boolean;
}

/** A word no other test uses, so the shared store cannot disturb the results. */
function word(): string {
  return `w${randomBytes(5).toString('hex')}`;
}

function tag(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

type Params = Record<string, string | undefined>;

function queryString(params: Params): string {
  const defined = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return new URLSearchParams(defined).toString();
}

async function search(params: Params, token?: string) {
  return api.request<Page>('GET', `/v1/messages/search?${queryString(params)}`, { token });
}

async function searchIds(params: Params, token?: string): Promise<string[]> {
  const res = await search(params, token);
  expect(res.status).toBe(200);
  return res.body.messages.map((m) => m.id);
}

describe('GET /v1/messages/search by content', () => {
  it('when messages match, then the more relevant comes first and equal ones newest first', async () => {
    const w = word();
    const weak = await postMessage(api, alice.token, {
      content: `${w} with plenty of other words around it so that it weighs less`,
    });
    const strong = await postMessage(api, alice.token, { content: `${w} ${w} ${w}` });
    const twinOld = await postMessage(api, alice.token, { content: `${w} twin text` });
    const twinNew = await postMessage(api, alice.token, { content: `${w} twin text` });
    await postMessage(api, alice.token, { content: 'nothing to see here' });

    const ids = await searchIds({ q: w }, alice.token);
    expect(ids[0]).toBe(strong.id);
    expect(ids.indexOf(twinNew.id)).toBe(ids.indexOf(twinOld.id) - 1);
    expect(ids[ids.length - 1]).toBe(weak.id);
    expect(ids).toHaveLength(4);
  });

  it('when a search follows each post at once, then it finds that post and its tag every time', async () => {
    // The index refreshes its searcher at most once a second (neo4j/'s launcher), not per post:
    // the search itself must apply and refresh what was committed before it.
    for (let round = 0; round < 8; round++) {
      const [w, t] = [word(), tag()];
      const posted = await postMessage(api, alice.token, { content: `${w} round ${round}`, tags: [t] });
      expect(await searchIds({ q: w }, alice.token)).toEqual([posted.id]);
      expect(await searchIds({ tags: t }, alice.token)).toEqual([posted.id]);
    }
  });

  it('when several words are given, then every word must occur, in any case', async () => {
    const [a, b] = [word(), word()];
    const both = await postMessage(api, alice.token, { content: `${b.toUpperCase()} then ${a}` });
    await postMessage(api, alice.token, { content: `only ${a}` });
    expect(await searchIds({ q: `${a} ${b}` }, alice.token)).toEqual([both.id]);
  });

  it('when `query` is used instead of `q` and `scope` is sent, then the alias works and scope is ignored', async () => {
    const w = word();
    const m = await postMessage(api, alice.token, { content: `alias ${w}` });
    expect(await searchIds({ query: w, scope: 'everything' }, alice.token)).toEqual([m.id]);
    // q wins over query
    expect(await searchIds({ q: w, query: word() }, alice.token)).toEqual([m.id]);
  });

  it('when the text holds Lucene syntax, then it is taken as plain words and never fails', async () => {
    const w = word();
    const m = await postMessage(api, alice.token, {
      content: `${w} and (more) "quoted" title:x* don't naïve-ish`,
    });
    expect(await searchIds({ q: `${w} AND (` }, alice.token)).toEqual([m.id]);
    expect(await searchIds({ q: `"${w}` }, alice.token)).toEqual([m.id]);
    expect(await searchIds({ q: `${w} title:x* DON'T naïve-ish ( ) * ? \\ && || ! ~` }, alice.token)).toEqual(
      [m.id],
    );
    // Operators are words too: NOT and OR are required here, and the message lacks them.
    expect(await searchIds({ q: `${w} NOT more` }, alice.token)).toEqual([]);
    expect(await searchIds({ q: `${w} OR nothing` }, alice.token)).toEqual([]);
    for (const q of [
      'a AND (',
      '"',
      '(',
      '*',
      '?',
      '\\',
      'NOT',
      '-',
      '&&',
      '[',
      '}',
      '~',
      'a:',
      '/x/',
      'a"b\\"',
    ]) {
      const res = await search({ q }, alice.token);
      expect(res.status).toBe(200);
    }
    // No word at all: nothing matches (rather than everything).
    const punct = await search({ q: '"(*)" \\ ::' }, alice.token);
    expect(punct.status).toBe(200);
    expect(punct.body.messages).toEqual([]);
  });
});

describe('GET /v1/messages/search by tags', () => {
  it('when match is any or all, then messages carry at least one or every tag', async () => {
    const [t1, t2, t3] = [tag(), tag(), tag()];
    const one = await postMessage(api, alice.token, { content: 'tag one', tags: [t1] });
    const both = await postMessage(api, alice.token, { content: 'tag both', tags: [t1, t2] });
    const two = await postMessage(api, alice.token, { content: 'tag two', tags: [t2] });
    await postMessage(api, alice.token, { content: 'tag other', tags: [t3] });

    // any: the message carrying both tags first, then newest first
    expect(await searchIds({ tags: `${t1},${t2}` }, alice.token)).toEqual([both.id, two.id, one.id]);
    expect(await searchIds({ tags: `${t1},${t2}`, match: 'any' }, alice.token)).toEqual([
      both.id,
      two.id,
      one.id,
    ]);
    expect(await searchIds({ tags: `${t1},${t2}`, match: 'all' }, alice.token)).toEqual([both.id]);
    // compared lower-case, spaces and empty pieces ignored
    expect(await searchIds({ tags: ` ${t2.toUpperCase()} ,, ` }, alice.token)).toEqual([two.id, both.id]);
  });

  it('when tags hold Lucene characters (: / . - _), then they match exactly', async () => {
    const base = tag();
    const special = `ns:${base}/a.b-c_d`;
    const m = await postMessage(api, alice.token, { content: 'special tag', tags: [special] });
    await postMessage(api, alice.token, { content: 'prefix only', tags: [`ns:${base}`] });
    expect(await searchIds({ tags: special }, alice.token)).toEqual([m.id]);
  });

  it('when q and tags are combined, then both must hold', async () => {
    const w = word();
    const t = tag();
    const hit = await postMessage(api, alice.token, { content: `combined ${w}`, tags: [t] });
    await postMessage(api, alice.token, { content: `combined ${w}` });
    await postMessage(api, alice.token, { content: 'combined without the word', tags: [t] });
    expect(await searchIds({ q: w, tags: t }, alice.token)).toEqual([hit.id]);
    expect(await searchIds({ q: w, tags: `${t},${tag()}`, match: 'all' }, alice.token)).toEqual([]);
    expect(await searchIds({ q: w, tags: `${t},${tag()}`, match: 'any' }, alice.token)).toEqual([hit.id]);
  });
});

describe('GET /v1/messages/search visibility', () => {
  it('when hidden messages contain a searched word, then the order of a stranger’s results does not change', async () => {
    // Finding #6: Lucene's BM25 weighs a word by how rare it is in the whole index, hidden messages
    // included, so with two equally long decoys the order flipped once a private message held W.
    const [w, c] = [word(), word()];
    const cHeavy = await postMessage(api, alice.token, { content: `${w} ${c} ${c} ${c}`, public: true });
    const wHeavy = await postMessage(api, alice.token, { content: `${w} ${w} ${w} ${c}`, public: true });
    const before = await searchIds({ q: `${w} ${c}` }, bob.token);
    // Equal counts of the query's words: newest first.
    expect(before).toEqual([wHeavy.id, cHeavy.id]);

    for (let i = 0; i < 5; i++) {
      await postMessage(api, alice.token, { content: `${w} ${w} private note ${i}` });
    }
    expect(await searchIds({ q: `${w} ${c}` }, bob.token)).toEqual(before);
    expect(await searchIds({ q: `${w} ${c}` })).toEqual(before);
    expect(await searchIds({ q: `${c} ${w}` }, bob.token)).toEqual(before);
  });

  it("when another user's message is private, then it never appears; public and own ones do", async () => {
    const w = word();
    const t = tag();
    const secret = await postMessage(api, alice.token, { content: `secret ${w}`, tags: [t] });
    const open = await postMessage(api, alice.token, { content: `open ${w}`, public: true, tags: [t] });

    expect(await searchIds({ q: w }, bob.token)).toEqual([open.id]);
    expect(await searchIds({ tags: t }, bob.token)).toEqual([open.id]);
    expect((await searchIds({ q: w }, alice.token)).sort()).toEqual([secret.id, open.id].sort());
  });

  it('when the caller is anonymous, then only public messages are found', async () => {
    const w = word();
    const t = tag();
    await postMessage(api, alice.token, { content: `private ${w}`, tags: [t] });
    await postMessage(api, alice.token, {
      content: `cc ${w}`,
      tags: [t],
      recipients: [{ user_tag: bob.tag }],
    });
    const open = await postMessage(api, alice.token, { content: `public ${w}`, public: true, tags: [t] });
    expect(await searchIds({ q: w })).toEqual([open.id]);
    expect(await searchIds({ tags: t })).toEqual([open.id]);
  });

  it('when a user is a BCC recipient, then the message is found by them and by no one else', async () => {
    const w = word();
    const carol = await registerUser(api);
    const bcc = await postMessage(api, alice.token, {
      content: `blind ${w}`,
      recipients: [{ user_tag: bob.tag, public: false }],
    });
    expect(await searchIds({ q: w }, bob.token)).toEqual([bcc.id]);
    expect(await searchIds({ q: w }, carol.token)).toEqual([]);
  });

  it('when a signed-in caller lacks messages.read, then the answer is 403', async () => {
    const reader = await registerUser(api);
    await grant(api, reader.uid, { scopes: [] });
    const res = await search({ q: word() }, reader.token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when credentials are invalid, then the answer is 401', async () => {
    const res = await search({ q: word() }, 'svc_session_nope.nope');
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/messages/search pagination and validation', () => {
  it('when results span pages, then skip and limit cut them and has_more tells', async () => {
    const w = word();
    const posted = [];
    for (let i = 0; i < 3; i++) posted.push(await postMessage(api, alice.token, { content: `page ${w}` }));
    const newestFirst = posted.map((m) => m.id).reverse();

    const first = await search({ q: w, limit: '2' }, alice.token);
    expect(first.body).toMatchObject({ skip: 0, limit: 2, has_more: true });
    expect(first.body.messages.map((m) => m.id)).toEqual(newestFirst.slice(0, 2));
    const second = await search({ q: w, skip: '2', limit: '2' }, alice.token);
    expect(second.body).toMatchObject({ skip: 2, limit: 2, has_more: false });
    expect(second.body.messages.map((m) => m.id)).toEqual(newestFirst.slice(2));

    const defaults = await search({ q: w }, alice.token);
    expect(defaults.body).toMatchObject({ skip: 0, limit: 15, has_more: false });
  });

  it('when skip or limit is out of range, then the answer is 422', async () => {
    for (const params of [{ limit: '0' }, { limit: '101' }, { skip: '-1' }, { limit: 'x' }]) {
      const res = await search({ q: word(), ...params }, alice.token);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_error' });
    }
    expect((await search({ q: word(), limit: '100' }, alice.token)).status).toBe(200);
  });

  it('when neither q, query nor tags is given, then the answer is 422 naming q', async () => {
    for (const params of [{}, { q: '' }, { q: '  ', tags: ',' }, { match: 'all' }]) {
      const res = await search(params, alice.token);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['query', 'q'] }] });
    }
  });

  it('when a tag or match is invalid, then the answer is 422', async () => {
    for (const params of [{ tags: 'bad tag!' }, { tags: 'x'.repeat(65) }, { q: 'x', match: 'some' }]) {
      const res = await search(params, alice.token);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_error' });
    }
  });
});

describe('GraphQL Query.searchMessages', () => {
  const FIELDS = 'messages { id content tags } skip limit has_more';

  it('when searching by words and tags, then the REST answer comes back, public only for anonymous callers', async () => {
    const w = word();
    const t = tag();
    const secret = await postMessage(api, alice.token, { content: `gql ${w}`, tags: [t] });
    const open = await postMessage(api, alice.token, { content: `gql ${w}`, tags: [t], public: true });
    const query = `query($q: String, $tags: [String!]) {
      byWords: searchMessages(q: $q) { ${FIELDS} }
      byTags: searchMessages(tags: $tags, match: all, limit: 1) { ${FIELDS} }
    }`;
    const mine = await api.graphql<{ byWords: Page; byTags: Page }>(
      query,
      { q: w, tags: [t] },
      {
        token: alice.token,
      },
    );
    expect(mine.body.errors).toBeUndefined();
    expect(mine.body.data!.byWords.messages.map((m) => m.id).sort()).toEqual([secret.id, open.id].sort());
    expect(mine.body.data!.byTags).toMatchObject({ limit: 1, has_more: true, messages: [{ id: open.id }] });

    const anonymous = await api.graphql<{ byWords: Page; byTags: Page }>(query, { q: w, tags: [t] });
    expect(anonymous.body.errors).toBeUndefined();
    expect(anonymous.body.data!.byWords.messages.map((m) => m.id)).toEqual([open.id]);
  });

  it('when `query` is used instead of `q` and `scope` is sent, then the alias works and scope is ignored, as on REST', async () => {
    const w = word();
    const m = await postMessage(api, alice.token, { content: `gql alias ${w}` });
    const res = await api.graphql<{ alias: Page; both: Page }>(
      `query($w: String!, $other: String!) {
        alias: searchMessages(query: $w, scope: "everything") { ${FIELDS} }
        both: searchMessages(q: $w, query: $other) { ${FIELDS} }
      }`,
      { w, other: word() },
      { token: alice.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.alias.messages.map((message) => message.id)).toEqual([m.id]);
    const rest = (await search({ query: w, scope: 'everything' }, alice.token)).body;
    expect(res.body.data!.alias).toEqual({
      ...rest,
      messages: rest.messages.map(({ id, content, tags }) => ({ id, content, tags })),
    });
    // q wins over query
    expect(res.body.data!.both.messages.map((message) => message.id)).toEqual([m.id]);
  });

  it('when arguments are missing or out of range, then the REST errors come back', async () => {
    const none = await api.graphql(`{ searchMessages { has_more } }`, {}, { token: alice.token });
    expect(none.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    const limit = await api.graphql(`{ searchMessages(q: "x", limit: 101) { has_more } }`);
    expect(limit.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
  });
});
