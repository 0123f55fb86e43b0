// Stitches: POST and DELETE /v1/links/messages/{from}/{to}, GET /v1/links/messages/{id}/incoming and
// /outgoing, stitch_parent_ids / stitch_child_ids on messages, and the same operations over GraphQL.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createManaged,
  postMessage,
  registerUser,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';

interface Message {
  id: string;
  stitch_parent_ids: string[];
  stitch_child_ids: string[];
}

interface LinkResponse {
  from_id: string;
  to_id: string;
  stitched_by: string;
  created_at: string;
  linked: boolean;
}

interface Page {
  messages: Message[];
  skip: number;
  limit: number;
  has_more: boolean;
}

interface ErrorBody {
  code: string;
  detail: unknown;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MISSING_ID = 'ffffff00';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let reader: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob, carol, reader] = await Promise.all([
    registerWriter(api),
    registerWriter(api),
    registerWriter(api),
    registerUser(api),
  ]);
});
afterAll(async () => {
  await api.close();
});

const post = (user: TestUser, input: Record<string, unknown> = {}): Promise<PostedMessage> =>
  postMessage(api, user.token, { content: `message by ${user.tag}`, ...input });

/** A message every test user can see. */
const postPublic = (user: TestUser) => post(user, { public: true });

const stitch = <T = LinkResponse>(token: string | undefined, from: string, to: string) =>
  api.request<T>('POST', `/v1/links/messages/${from}/${to}`, { token });

const unstitch = <T = LinkResponse>(token: string | undefined, from: string, to: string) =>
  api.request<T>('DELETE', `/v1/links/messages/${from}/${to}`, { token });

const links = <T = Page>(
  token: string | undefined,
  id: string,
  direction: 'incoming' | 'outgoing',
  query = '',
) => api.request<T>('GET', `/v1/links/messages/${id}/${direction}${query ? `?${query}` : ''}`, { token });

async function read(token: string, id: string): Promise<Message> {
  const res = await api.request<Message>('GET', `/v1/messages/${id}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

function expectError(res: ApiResponse<unknown>, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as ErrorBody).code }).toEqual({ status, code });
}

/** Stitches in sequence, a few ms apart, so that "newest stitch first" has a well-defined answer. */
async function stitchInOrder(pairs: [TestUser, string, string][]): Promise<void> {
  for (const [user, from, to] of pairs) {
    expect((await stitch(user.token, from, to)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const idsOf = (page: Page) => page.messages.map((m) => m.id);

describe('POST /v1/links/messages/{from}/{to}', () => {
  it('when a writer stitches two visible messages, then the LinkResponse names the stitch and both messages show it', async () => {
    const [from, to] = [await post(alice), await postPublic(bob)];
    const res = await stitch(alice.token, from.id, to.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      from_id: from.id,
      to_id: to.id,
      stitched_by: alice.uid,
      created_at: expect.stringMatching(TIMESTAMP),
      linked: true,
    });
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([to.id]);
    expect((await read(alice.token, to.id)).stitch_parent_ids).toEqual([from.id]);
    expect((await read(alice.token, to.id)).stitch_child_ids).toEqual([]);
  });

  it('when the same caller stitches twice, then the first stitch is answered again and nothing doubles', async () => {
    const [from, to] = [await post(alice), await post(alice)];
    const first = await stitch(alice.token, from.id, to.id);
    const second = await stitch(alice.token, from.id, to.id);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([to.id]);
    const page = await links(alice.token, to.id, 'incoming', 'show_all_links=true');
    expect(idsOf(page.body)).toEqual([from.id]);
  });

  it('when two people stitch the same pair, then each owns a stitch and the message lists the target once', async () => {
    const [from, to] = [await postPublic(alice), await postPublic(alice)];
    const mine = await stitch(alice.token, from.id, to.id);
    const theirs = await stitch(bob.token, from.id, to.id);
    expect(mine.body.stitched_by).toBe(alice.uid);
    expect(theirs.body.stitched_by).toBe(bob.uid);
    expect((await read(carol.token, from.id)).stitch_child_ids).toEqual([to.id]);
    expect((await read(carol.token, to.id)).stitch_parent_ids).toEqual([from.id]);
  });

  it('when a message is stitched to itself, then 422 invalid_link', async () => {
    const m = await post(alice);
    expectError(await stitch(alice.token, m.id, m.id), 422, 'invalid_link');
  });

  it('when an id is malformed, then 422 validation_error', async () => {
    const m = await post(alice);
    expectError(await stitch(alice.token, m.id, 'not-an-id'), 422, 'validation_error');
    expectError(await stitch(alice.token, 'ABCDEF12', m.id), 422, 'validation_error');
  });

  it('when the caller lacks messages.write, then 403 and no stitch is drawn', async () => {
    const [from, to] = [await postPublic(alice), await postPublic(alice)];
    expectError(await stitch(reader.token, from.id, to.id), 403, 'insufficient_scope');
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([]);
  });

  it('when no credentials are sent, then 401', async () => {
    const [from, to] = [await postPublic(alice), await postPublic(alice)];
    expectError(await stitch(undefined, from.id, to.id), 401, 'not_authenticated');
  });

  it('when either end is invisible to the caller, then the same 404 as a missing message, and nothing is drawn', async () => {
    const [hidden, open] = [await post(alice), await postPublic(alice)];
    const missing = await stitch(bob.token, open.id, MISSING_ID);
    expectError(missing, 404, 'message_not_found');
    const toHidden = await stitch(bob.token, open.id, hidden.id);
    const fromHidden = await stitch(bob.token, hidden.id, open.id);
    expect(toHidden.status).toBe(404);
    expect(toHidden.body).toEqual(missing.body);
    expect(fromHidden.body).toEqual(missing.body);
    expect((await read(alice.token, open.id)).stitch_child_ids).toEqual([]);
    expect((await read(alice.token, open.id)).stitch_parent_ids).toEqual([]);
  });
});

describe('stitch_parent_ids and stitch_child_ids', () => {
  it('when one end of a stitch is invisible to the viewer, then the viewer does not see its id', async () => {
    const open = await postPublic(alice);
    const secretParent = await post(alice);
    const secretChild = await post(alice);
    const openChild = await postPublic(carol);
    await stitchInOrder([
      [alice, secretParent.id, open.id],
      [alice, open.id, secretChild.id],
      [carol, open.id, openChild.id],
    ]);
    const asAuthor = await read(alice.token, open.id);
    expect(asAuthor.stitch_parent_ids).toEqual([secretParent.id]);
    expect([...asAuthor.stitch_child_ids].sort()).toEqual([secretChild.id, openChild.id].sort());
    const asOther = await read(bob.token, open.id);
    expect(asOther.stitch_parent_ids).toEqual([]);
    expect(asOther.stitch_child_ids).toEqual([openChild.id]);
  });

  it('when a stitch is removed, then both messages stop listing it', async () => {
    const [from, to] = [await post(alice), await post(alice)];
    await stitch(alice.token, from.id, to.id);
    await unstitch(alice.token, from.id, to.id);
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([]);
    expect((await read(alice.token, to.id)).stitch_parent_ids).toEqual([]);
  });
});

describe('DELETE /v1/links/messages/{from}/{to}', () => {
  it("when the caller removes its own stitch, then linked is false and others' stitches stay", async () => {
    const [from, to] = [await postPublic(carol), await postPublic(carol)];
    const drawn = await stitch(alice.token, from.id, to.id);
    await stitch(bob.token, from.id, to.id);
    const res = await unstitch(alice.token, from.id, to.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...drawn.body, linked: false });
    expect(idsOf((await links(alice.token, from.id, 'outgoing')).body)).toEqual([]);
    expect(idsOf((await links(bob.token, from.id, 'outgoing')).body)).toEqual([to.id]);
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([to.id]);
  });

  it('when the caller has no stitch there, then 404 link_not_found', async () => {
    const [from, to] = [await post(alice), await post(alice)];
    expectError(await unstitch(alice.token, from.id, to.id), 404, 'link_not_found');
  });

  it('when removing twice, then the second time is 404 link_not_found', async () => {
    const [from, to] = [await post(alice), await post(alice)];
    await stitch(alice.token, from.id, to.id);
    expect((await unstitch(alice.token, from.id, to.id)).status).toBe(200);
    expectError(await unstitch(alice.token, from.id, to.id), 404, 'link_not_found');
  });

  it("when someone who is not the FROM message's author removes another's stitch, then 404 and it stays", async () => {
    const [from, to] = [await postPublic(alice), await postPublic(alice)];
    await stitch(bob.token, from.id, to.id);
    expectError(await unstitch(carol.token, from.id, to.id), 404, 'link_not_found');
    // The TO message's author has no say over stitches into it either.
    const [other, target] = [await postPublic(carol), await postPublic(alice)];
    await stitch(bob.token, other.id, target.id);
    expectError(await unstitch(alice.token, other.id, target.id), 404, 'link_not_found');
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([to.id]);
    expect((await read(alice.token, target.id)).stitch_parent_ids).toEqual([other.id]);
  });

  it("when the FROM message's author removes others' stitches, then every stitch between them goes", async () => {
    const [from, to] = [await postPublic(alice), await postPublic(carol)];
    const bobs = await stitch(bob.token, from.id, to.id);
    await stitch(carol.token, from.id, to.id);
    const res = await unstitch(alice.token, from.id, to.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...bobs.body, linked: false });
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([]);
    expect(idsOf((await links(bob.token, to.id, 'incoming', 'show_all_links=true')).body)).toEqual([]);
  });

  it("when the FROM author's manager removes a stitch out of the managed user's message, then it goes", async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    const from = await postMessage(api, delegated.body.access_token, { content: 'by a bot', public: true });
    const to = await postPublic(alice);
    await stitch(bob.token, from.id, to.id);
    const res = await unstitch(manager.token, from.id, to.id);
    expect(res.status).toBe(200);
    expect(res.body.stitched_by).toBe(bob.uid);
    expect((await read(bob.token, from.id)).stitch_child_ids).toEqual([]);
  });

  it('when the caller lacks messages.write, then 403', async () => {
    const [from, to] = [await postPublic(alice), await postPublic(alice)];
    await stitch(alice.token, from.id, to.id);
    expectError(await unstitch(reader.token, from.id, to.id), 403, 'insufficient_scope');
    expect((await read(alice.token, from.id)).stitch_child_ids).toEqual([to.id]);
  });

  it('when no credentials are sent, then 401', async () => {
    const [from, to] = [await postPublic(alice), await postPublic(alice)];
    expectError(await unstitch(undefined, from.id, to.id), 401, 'not_authenticated');
  });

  it('when an end is invisible or missing, then the same 404 message_not_found', async () => {
    const [hidden, open] = [await post(alice), await postPublic(alice)];
    await stitch(alice.token, open.id, hidden.id);
    const missing = await unstitch(bob.token, open.id, MISSING_ID);
    expectError(missing, 404, 'message_not_found');
    const invisible = await unstitch(bob.token, open.id, hidden.id);
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual(missing.body);
  });

  it('when both ids are the same or malformed, then 422', async () => {
    const m = await post(alice);
    expectError(await unstitch(alice.token, m.id, m.id), 422, 'invalid_link');
    expectError(await unstitch(alice.token, m.id, 'zz'), 422, 'validation_error');
  });
});

describe('GET /v1/links/messages/{id}/incoming and /outgoing', () => {
  it('when listing, then only the caller’s stitches count unless show_all_links is true, newest stitch first', async () => {
    const hub = await postPublic(carol);
    const [a, b, c] = [await postPublic(carol), await postPublic(carol), await postPublic(carol)];
    await stitchInOrder([
      [alice, a.id, hub.id],
      [bob, b.id, hub.id],
      [alice, c.id, hub.id],
      [alice, hub.id, a.id],
      [bob, hub.id, c.id],
      [alice, hub.id, b.id],
    ]);

    const mineIn = await links(alice.token, hub.id, 'incoming');
    expect(mineIn.status).toBe(200);
    expect(mineIn.body).toMatchObject({ skip: 0, limit: 15, has_more: false });
    expect(idsOf(mineIn.body)).toEqual([c.id, a.id]);
    expect(idsOf((await links(alice.token, hub.id, 'incoming', 'show_all_links=false')).body)).toEqual([
      c.id,
      a.id,
    ]);
    expect(idsOf((await links(alice.token, hub.id, 'incoming', 'show_all_links=true')).body)).toEqual([
      c.id,
      b.id,
      a.id,
    ]);
    expect(idsOf((await links(alice.token, hub.id, 'outgoing')).body)).toEqual([b.id, a.id]);
    expect(idsOf((await links(alice.token, hub.id, 'outgoing', 'show_all_links=1')).body)).toEqual([
      b.id,
      c.id,
      a.id,
    ]);
    // Full MessageOutputs, as the caller sees them.
    const first = (await links(alice.token, hub.id, 'incoming')).body.messages[0]!;
    expect(first).toMatchObject({ id: c.id, stitch_child_ids: [hub.id] });
  });

  it('when a message is linked by several people, then it is listed once, at its newest stitch', async () => {
    const hub = await postPublic(carol);
    const [a, b] = [await postPublic(carol), await postPublic(carol)];
    await stitchInOrder([
      [alice, a.id, hub.id],
      [bob, b.id, hub.id],
      [bob, a.id, hub.id],
    ]);
    const page = await links(carol.token, hub.id, 'incoming', 'show_all_links=true');
    expect(idsOf(page.body)).toEqual([a.id, b.id]);
  });

  it('when a linked message is invisible to the caller, then it is never listed, even with show_all_links', async () => {
    const hub = await postPublic(alice);
    const [secret, open] = [await post(alice), await postPublic(alice)];
    await stitchInOrder([
      [alice, secret.id, hub.id],
      [alice, open.id, hub.id],
      [alice, hub.id, secret.id],
    ]);
    expect(idsOf((await links(bob.token, hub.id, 'incoming', 'show_all_links=true')).body)).toEqual([
      open.id,
    ]);
    expect(idsOf((await links(bob.token, hub.id, 'outgoing', 'show_all_links=true')).body)).toEqual([]);
    expect(idsOf((await links(alice.token, hub.id, 'incoming')).body)).toEqual([open.id, secret.id]);
  });

  it('when paging, then skip and limit cut the list and has_more tells whether more follow', async () => {
    const hub = await postPublic(alice);
    const sources: PostedMessage[] = [];
    for (let i = 0; i < 5; i++) sources.push(await postPublic(alice));
    await stitchInOrder(sources.map((s): [TestUser, string, string] => [alice, s.id, hub.id]));
    const newestFirst = sources.map((s) => s.id).reverse();
    const first = await links(alice.token, hub.id, 'incoming', 'limit=2');
    expect(first.body).toMatchObject({ skip: 0, limit: 2, has_more: true });
    expect(idsOf(first.body)).toEqual(newestFirst.slice(0, 2));
    const last = await links(alice.token, hub.id, 'incoming', 'skip=3&limit=2');
    expect(last.body).toMatchObject({ skip: 3, limit: 2, has_more: false });
    expect(idsOf(last.body)).toEqual(newestFirst.slice(3));
    const exact = await links(alice.token, hub.id, 'incoming', 'skip=0&limit=5');
    expect(exact.body.has_more).toBe(false);
    const beyond = await links(alice.token, hub.id, 'incoming', 'skip=10');
    expect(beyond.body).toMatchObject({ messages: [], has_more: false });
  });

  it('when the caller holds only messages.read, then listing works', async () => {
    const [from, to] = [await postPublic(alice), await postPublic(alice)];
    await stitch(alice.token, from.id, to.id);
    const res = await links(reader.token, to.id, 'incoming', 'show_all_links=true');
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([from.id]);
  });

  it('when the message is invisible or missing, then the same 404', async () => {
    const hidden = await post(alice);
    for (const direction of ['incoming', 'outgoing'] as const) {
      const missing = await links(bob.token, MISSING_ID, direction);
      expectError(missing, 404, 'message_not_found');
      const invisible = await links(bob.token, hidden.id, direction);
      expect(invisible.status).toBe(404);
      expect(invisible.body).toEqual(missing.body);
    }
  });

  it('when skip, limit or show_all_links is out of range, then 422', async () => {
    const m = await postPublic(alice);
    for (const query of ['limit=0', 'limit=101', 'skip=-1', 'limit=abc', 'show_all_links=maybe']) {
      expectError(await links(alice.token, m.id, 'incoming', query), 422, 'validation_error');
    }
    expectError(await links(alice.token, 'nope', 'outgoing'), 422, 'validation_error');
  });

  it('when no credentials are sent, then 401', async () => {
    const m = await postPublic(alice);
    expectError(await links(undefined, m.id, 'incoming'), 401, 'not_authenticated');
  });
});

describe('GraphQL stitches', () => {
  const LINK = 'from_id to_id stitched_by created_at linked';
  const PAGE = 'messages { id stitch_parent_ids stitch_child_ids } skip limit has_more';

  it('when stitching, listing and unstitching over GraphQL, then the answers match REST', async () => {
    const [from, to] = [await postPublic(alice), await postPublic(carol)];
    const stitched = await api.graphql<{ stitch: LinkResponse }>(
      `mutation ($f: String!, $t: String!) { stitch(message_id_from: $f, message_id_to: $t) { ${LINK} } }`,
      { f: from.id, t: to.id },
      { token: bob.token },
    );
    expect(stitched.body.errors).toBeUndefined();
    expect(stitched.body.data?.stitch).toEqual({
      from_id: from.id,
      to_id: to.id,
      stitched_by: bob.uid,
      created_at: expect.stringMatching(TIMESTAMP),
      linked: true,
    });

    const listed = await api.graphql<{ incomingLinks: Page; outgoingLinks: Page }>(
      `query ($id: String!, $from: String!) {
        incomingLinks(message_id: $id) { ${PAGE} }
        outgoingLinks(message_id: $from, show_all_links: true, limit: 5) { ${PAGE} }
      }`,
      { id: to.id, from: from.id },
      { token: bob.token },
    );
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data?.incomingLinks).toEqual({
      messages: [{ id: from.id, stitch_parent_ids: [], stitch_child_ids: [to.id] }],
      skip: 0,
      limit: 15,
      has_more: false,
    });
    expect(listed.body.data?.outgoingLinks).toMatchObject({ limit: 5, messages: [{ id: to.id }] });
    const notMine = await api.graphql<{ incomingLinks: Page }>(
      `query ($id: String!) { incomingLinks(message_id: $id, show_all_links: false) { ${PAGE} } }`,
      { id: to.id },
      { token: alice.token },
    );
    expect(notMine.body.data?.incomingLinks.messages).toEqual([]);

    const removed = await api.graphql<{ unstitch: LinkResponse }>(
      `mutation ($f: String!, $t: String!) { unstitch(message_id_from: $f, message_id_to: $t) { ${LINK} } }`,
      { f: from.id, t: to.id },
      { token: bob.token },
    );
    expect(removed.body.data?.unstitch).toEqual({ ...stitched.body.data?.stitch, linked: false });
    expect((await read(bob.token, to.id)).stitch_parent_ids).toEqual([]);
  });

  it('when a GraphQL stitch fails, then the error carries the REST code and status', async () => {
    const [open, hidden] = [await postPublic(alice), await post(alice)];
    const cases: [string, string, string, number][] = [
      [reader.token, open.id, hidden.id, 403],
      [bob.token, open.id, hidden.id, 404],
      [bob.token, open.id, open.id, 422],
    ];
    const codes = { 403: 'insufficient_scope', 404: 'message_not_found', 422: 'invalid_link' } as const;
    for (const [token, f, t, status] of cases) {
      const res = await api.graphql(
        `mutation ($f: String!, $t: String!) { stitch(message_id_from: $f, message_id_to: $t) { linked } }`,
        { f, t },
        { token },
      );
      expect(res.body.errors?.[0]?.extensions).toMatchObject({
        code: codes[status as keyof typeof codes],
        status,
      });
    }
    const unstitched = await api.graphql(
      `mutation ($f: String!, $t: String!) { unstitch(message_id_from: $f, message_id_to: $t) { linked } }`,
      { f: open.id, t: (await postPublic(alice)).id },
      { token: bob.token },
    );
    expect(unstitched.body.errors?.[0]?.extensions).toMatchObject({ code: 'link_not_found', status: 404 });
    const listed = await api.graphql(
      `query ($id: String!) { incomingLinks(message_id: $id, limit: 0) { has_more } }`,
      { id: open.id },
      { token: bob.token },
    );
    expect(listed.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    const anonymous = await api.graphql(
      `query ($id: String!) { outgoingLinks(message_id: $id) { has_more } }`,
      {
        id: open.id,
      },
    );
    expect(anonymous.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_authenticated', status: 401 });
  });
});

describe('OpenAPI', () => {
  it('when the document is read, then every stitch route is described with its errors', async () => {
    const res = await api.request<{
      paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>>;
    }>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const pair = res.body.paths['/v1/links/messages/{message_id_from}/{message_id_to}'];
    expect(Object.keys(pair?.post?.responses ?? {}).sort()).toEqual(['200', '401', '403', '404', '422']);
    expect(pair?.delete?.description).toContain('author of the FROM message');
    for (const direction of ['incoming', 'outgoing']) {
      const list = res.body.paths[`/v1/links/messages/{message_id}/${direction}`]?.get;
      expect(list?.description).toContain('show_all_links');
      expect(Object.keys(list?.responses ?? {}).sort()).toEqual(['200', '401', '404', '422']);
    }
  });
});
