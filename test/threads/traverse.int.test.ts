// GET /v1/messages/traverse-from/{message_id} and GET /v1/messages/{message_id}/tree-ids, and their
// GraphQL fields (traverse, treeIds, Message.thread).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  postMessage,
  registerUser,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import {
  MAX_TRAVERSAL_CONTENT_CHARS,
  MAX_TRAVERSAL_NODES,
} from '../../src/components/threads/threads.schemas.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  createChannel,
  expectValidationError,
  registerChannelOwner,
  type ViewMessage,
} from './thread-fixtures.js';

interface Traversal {
  origin_id: string;
  messages: ViewMessage[];
  edges: { from: string; to: string; type: 'reply' | 'link' }[];
  truncated: boolean;
}

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const post = (user: TestUser, input: Record<string, unknown>) => postMessage(api, user.token, input);

async function traverse(user: TestUser | undefined, id: string, query = ''): Promise<Traversal> {
  const res = await api.request<Traversal>('GET', `/v1/messages/traverse-from/${id}${query}`, {
    token: user?.token,
  });
  if (res.status !== 200) throw new Error(`traverse answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** {id: depth} of a traversal, for compact assertions. */
const depths = (t: Traversal) => Object.fromEntries(t.messages.map((m) => [m.id, m.depth]));
const edgeList = (t: Traversal) => t.edges.map((e) => `${e.from}>${e.to}:${e.type}`).sort();

async function stitch(user: TestUser, from: string, to: string): Promise<void> {
  const res = await api.request('POST', `/v1/links/messages/${from}/${to}`, { token: user.token });
  expect(res.status).toBe(200);
}

async function setDefault(user: TestUser, id: string, child: string | null): Promise<void> {
  const res = await api.request('PATCH', `/v1/messages/${id}/default_outgoing`, {
    token: user.token,
    body: { default_outgoing: child },
  });
  expect(res.status).toBe(200);
}

/** A reply chain c0 → c1 → … → c(n-1) by `user`. */
async function chain(
  user: TestUser,
  n: number,
  extra: Record<string, unknown> = {},
): Promise<PostedMessage[]> {
  const out: PostedMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      await post(user, { content: `c${i}`, ...extra, ...(i > 0 ? { parent_id: out[i - 1]!.id } : {}) }),
    );
  }
  return out;
}

/**
 * A branching thread with mixed visibility:
 *   root (author → cc)
 *   ├─ hidden (author only)
 *   │   └─ hiddenChild (author → cc): visible to cc, but under an invisible parent
 *   └─ ccReply (by cc → author)
 *       └─ openLeaf (author, public)
 */
describe('visibility of walks', () => {
  let author: TestUser, cc: TestUser, third: TestUser, member: TestUser;
  let root: PostedMessage, hidden: PostedMessage, hiddenChild: PostedMessage;
  let ccReply: PostedMessage, openLeaf: PostedMessage, channelMsg: PostedMessage;

  beforeAll(async () => {
    const owner = await registerChannelOwner(api);
    [author, cc, third, member] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerUser(api),
      registerUser(api),
    ]);
    const channelId = await createChannel(api, owner, [author, member]);
    root = await post(author, { content: 'root', recipients: [cc.tag] });
    hidden = await post(author, { content: 'hidden', parent_id: root.id });
    hiddenChild = await post(author, { content: 'hidden child', parent_id: hidden.id, recipients: [cc.tag] });
    ccReply = await post(cc, { content: 'cc reply', parent_id: root.id, recipients: [author.tag] });
    openLeaf = await post(author, { content: 'open leaf', parent_id: ccReply.id, public: true });
    channelMsg = await post(author, {
      content: 'in channel',
      parent_id: openLeaf.id,
      channel_ids: [channelId],
    });
  });

  it('when the author walks from the root, then every message within depth comes, with reply edges', async () => {
    const t = await traverse(author, root.id, '?down_depth=3');
    expect(t.origin_id).toBe(root.id);
    expect(depths(t)).toEqual({
      [root.id]: 0,
      [hidden.id]: 1,
      [ccReply.id]: 1,
      [hiddenChild.id]: 2,
      [openLeaf.id]: 2,
      [channelMsg.id]: 3,
    });
    expect(t.messages.map((m) => m.id)).toEqual([
      root.id,
      hidden.id,
      ccReply.id,
      hiddenChild.id,
      openLeaf.id,
      channelMsg.id,
    ]);
    expect(edgeList(t)).toEqual(
      [
        `${root.id}>${hidden.id}:reply`,
        `${root.id}>${ccReply.id}:reply`,
        `${hidden.id}>${hiddenChild.id}:reply`,
        `${ccReply.id}>${openLeaf.id}:reply`,
        `${openLeaf.id}>${channelMsg.id}:reply`,
      ].sort(),
    );
  });

  it('when the CC recipient walks down, then an invisible child prunes its subtree even where it could see deeper', async () => {
    const t = await traverse(cc, root.id, '?down_depth=5');
    expect(depths(t)).toEqual({ [root.id]: 0, [ccReply.id]: 1, [openLeaf.id]: 2 });
    expect(edgeList(t)).toEqual(
      [`${root.id}>${ccReply.id}:reply`, `${ccReply.id}>${openLeaf.id}:reply`].sort(),
    );
  });

  it('when the CC recipient walks up from under an invisible parent, then the walk stops there', async () => {
    const t = await traverse(cc, hiddenChild.id, '?up_depth=5');
    expect(depths(t)).toEqual({ [hiddenChild.id]: 0 });
    expect(t.edges).toEqual([]);
  });

  it('when a third party walks from the public leaf, then the invisible ancestors are not passed', async () => {
    const t = await traverse(third, openLeaf.id, '?up_depth=5&down_depth=5');
    expect(depths(t)).toEqual({ [openLeaf.id]: 0 });
  });

  it('when a channel member walks up from the channel message, then it reaches the public leaf and stops', async () => {
    const t = await traverse(member, channelMsg.id, '?up_depth=5');
    expect(depths(t)).toEqual({ [channelMsg.id]: 0, [openLeaf.id]: -1 });
    expect(t.messages.map((m) => m.id)).toEqual([openLeaf.id, channelMsg.id]);
  });

  it('when the origin is not visible or does not exist, then the same 404; a malformed id is 422', async () => {
    const invisible = await api.request('GET', `/v1/messages/traverse-from/${root.id}`, {
      token: third.token,
    });
    const missing = await api.request('GET', '/v1/messages/traverse-from/00000000', { token: third.token });
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual(missing.body);
    expect(missing.body).toMatchObject({ code: 'message_not_found' });
    expectValidationError(
      await api.request('GET', '/v1/messages/traverse-from/XYZ', { token: third.token }),
      'message_id',
    );
  });

  it('when anonymous, then 401', async () => {
    expect((await api.request('GET', `/v1/messages/traverse-from/${openLeaf.id}`)).status).toBe(401);
    expect((await api.request('GET', `/v1/messages/${openLeaf.id}/tree-ids`)).status).toBe(401);
  });

  it('when get_replies is on (the default), then each message lists only its visible reply children', async () => {
    const asCc = await traverse(cc, root.id);
    const ccRoot = asCc.messages.find((m) => m.id === root.id)!;
    expect(ccRoot.replies).toEqual({ count: 1, ids: [ccReply.id] });
    const asAuthor = await traverse(author, root.id, '?get_replies=true');
    expect(asAuthor.messages.find((m) => m.id === root.id)!.replies).toEqual({
      count: 2,
      ids: [hidden.id, ccReply.id],
    });
    expect(asAuthor.messages.find((m) => m.id === hiddenChild.id)!.replies).toEqual({ count: 0, ids: [] });
  });

  it('when get_replies is false, then no replies field', async () => {
    const t = await traverse(author, root.id, '?get_replies=false');
    for (const m of t.messages) expect(m).not.toHaveProperty('replies');
  });

  describe('tree-ids', () => {
    it('when the author asks from any message, then every id of the thread, oldest first, and the root', async () => {
      const res = await api.request('GET', `/v1/messages/${channelMsg.id}/tree-ids`, { token: author.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        root_id: root.id,
        ids: [root.id, hidden.id, hiddenChild.id, ccReply.id, openLeaf.id, channelMsg.id],
      });
    });

    it('when the CC recipient asks, then the visible ids, including those under an invisible parent', async () => {
      const res = await api.request('GET', `/v1/messages/${root.id}/tree-ids`, { token: cc.token });
      expect(res.body).toEqual({ root_id: root.id, ids: [root.id, hiddenChild.id, ccReply.id, openLeaf.id] });
    });

    it('when the root is invisible, then root_id is the root the message shows: its own id under a hidden parent, else the topmost visible ancestor', async () => {
      const asThird = await api.request('GET', `/v1/messages/${openLeaf.id}/tree-ids`, {
        token: third.token,
      });
      expect(asThird.body).toEqual({ root_id: openLeaf.id, ids: [openLeaf.id] });
      const asMember = await api.request('GET', `/v1/messages/${openLeaf.id}/tree-ids`, {
        token: member.token,
      });
      expect(asMember.body).toEqual({ root_id: openLeaf.id, ids: [openLeaf.id, channelMsg.id] });
      const fromBelow = await api.request('GET', `/v1/messages/${channelMsg.id}/tree-ids`, {
        token: member.token,
      });
      expect(fromBelow.body).toEqual({ root_id: openLeaf.id, ids: [openLeaf.id, channelMsg.id] });
      const shown = await api.request<{ root_id: string }>('GET', `/v1/messages/${channelMsg.id}`, {
        token: member.token,
      });
      expect(shown.body.root_id).toBe(openLeaf.id);
    });

    it('when the CC recipient asks from under an invisible parent, then root_id is that message’s own id, as MessageOutput shows it', async () => {
      const res = await api.request('GET', `/v1/messages/${hiddenChild.id}/tree-ids`, { token: cc.token });
      expect(res.body).toEqual({
        root_id: hiddenChild.id,
        ids: [root.id, hiddenChild.id, ccReply.id, openLeaf.id],
      });
      const shown = await api.request<{ root_id: string; parent_id: string | null }>(
        'GET',
        `/v1/messages/${hiddenChild.id}`,
        { token: cc.token },
      );
      expect([shown.body.parent_id, shown.body.root_id]).toEqual([null, hiddenChild.id]);
    });

    it('when the message is invisible or missing, then the same 404; malformed is 422', async () => {
      const invisible = await api.request('GET', `/v1/messages/${hidden.id}/tree-ids`, { token: cc.token });
      const missing = await api.request('GET', '/v1/messages/00000000/tree-ids', { token: cc.token });
      expect(invisible.status).toBe(404);
      expect(invisible.body).toEqual(missing.body);
      expectValidationError(
        await api.request('GET', '/v1/messages/nothex00/tree-ids', { token: cc.token }),
        'message_id',
      );
    });
  });

  describe('GraphQL', () => {
    it('when traverse and treeIds are queried, then they answer what REST answers, with nested messages', async () => {
      const res = await api.graphql<{
        traverse: {
          origin_id: string;
          messages: {
            depth: number;
            replies: { count: number; ids: string[] } | null;
            message: { id: string };
          }[];
          edges: { from: string; to: string; type: string }[];
        };
        treeIds: { root_id: string | null; ids: string[] };
      }>(
        `query($id: String!) {
          traverse(message_id: $id, up_depth: 0, down_depth: 5, edge_type: replies) {
            origin_id
            messages { depth replies { count ids } message { id content author { uid } } }
            edges { from to type }
          }
          treeIds(message_id: $id) { root_id ids }
        }`,
        { id: root.id },
        { token: cc.token },
      );
      expect(res.body.errors).toBeUndefined();
      const rest = await traverse(cc, root.id, '?up_depth=0&down_depth=5');
      const data = res.body.data!;
      expect(data.traverse.origin_id).toBe(root.id);
      expect(data.traverse.messages.map((m) => [m.message.id, m.depth])).toEqual(
        rest.messages.map((m) => [m.id, m.depth]),
      );
      expect(data.traverse.messages[0]!.replies).toEqual({ count: 1, ids: [ccReply.id] });
      expect(data.traverse.edges).toEqual(rest.edges);
      expect(data.treeIds).toEqual({
        root_id: root.id,
        ids: [root.id, hiddenChild.id, ccReply.id, openLeaf.id],
      });
    });

    it('when Message.thread is asked, then the visible thread comes, oldest first, for every listed message', async () => {
      const res = await api.graphql<{
        message: { thread: { id: string }[]; replies: { thread: { id: string }[] }[] };
      }>(
        `query($id: String!) { message(message_id: $id) { thread { id } replies { thread { id } } } }`,
        { id: root.id },
        { token: cc.token },
      );
      expect(res.body.errors).toBeUndefined();
      const visible = [root.id, hiddenChild.id, ccReply.id, openLeaf.id];
      expect(res.body.data!.message.thread.map((m) => m.id)).toEqual(visible);
      expect(res.body.data!.message.replies.map((r) => r.thread.map((m) => m.id))).toEqual([visible]);
    });

    it('when an anonymous reader asks for the thread of a public message, then only public messages come', async () => {
      const res = await api.graphql<{
        publicMessages: { messages: { id: string; thread: { id: string }[] }[] };
      }>('{ publicMessages(limit: 100) { messages { id thread { id } } } }');
      expect(res.body.errors).toBeUndefined();
      const entry = res.body.data!.publicMessages.messages.find((m) => m.id === openLeaf.id);
      expect(entry?.thread.map((m) => m.id)).toEqual([openLeaf.id]);
    });

    it('when the arguments are out of range or the origin is invisible, then the REST errors', async () => {
      const bad = await api.graphql(
        'query($id: String!) { traverse(message_id: $id, up_depth: 101) { origin_id } }',
        { id: root.id },
        { token: cc.token },
      );
      expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
      for (const field of ['traverse(message_id: $id) { origin_id }', 'treeIds(message_id: $id) { ids }']) {
        const hiddenOrigin = await api.graphql(
          `query($id: String!) { ${field} }`,
          { id: hidden.id },
          { token: cc.token },
        );
        expect(hiddenOrigin.body.errors?.[0]?.extensions).toMatchObject({
          code: 'message_not_found',
          status: 404,
        });
      }
    });
  });
});

describe('depths', () => {
  let alice: TestUser;
  let c: PostedMessage[];
  beforeAll(async () => {
    alice = await registerWriter(api);
    c = await chain(alice, 7);
  });

  it('when no depths are given, then two hops each way', async () => {
    const t = await traverse(alice, c[3]!.id);
    expect(depths(t)).toEqual({
      [c[1]!.id]: -2,
      [c[2]!.id]: -1,
      [c[3]!.id]: 0,
      [c[4]!.id]: 1,
      [c[5]!.id]: 2,
    });
    expect(t.messages.map((m) => m.depth)).toEqual([-2, -1, 0, 1, 2]);
  });

  it('when depths are 0, then only the origin', async () => {
    const t = await traverse(alice, c[3]!.id, '?up_depth=0&down_depth=0');
    expect(depths(t)).toEqual({ [c[3]!.id]: 0 });
    expect(t.edges).toEqual([]);
  });

  it('when depths differ, then each direction stops at its own', async () => {
    const t = await traverse(alice, c[3]!.id, '?up_depth=1&down_depth=3');
    expect(depths(t)).toEqual({ [c[2]!.id]: -1, [c[3]!.id]: 0, [c[4]!.id]: 1, [c[5]!.id]: 2, [c[6]!.id]: 3 });
  });

  it('when depths reach past the ends, then the whole chain and its edges', async () => {
    const t = await traverse(alice, c[3]!.id, '?up_depth=100&down_depth=100');
    expect(Object.keys(depths(t))).toHaveLength(7);
    expect(depths(t)[c[0]!.id]).toBe(-3);
    expect(edgeList(t)).toEqual(
      c
        .slice(1)
        .map((m, i) => `${c[i]!.id}>${m.id}:reply`)
        .sort(),
    );
  });

  it('when a parameter is out of range or malformed, then 422 on it', async () => {
    const base = `/v1/messages/traverse-from/${c[0]!.id}`;
    for (const [query, field] of [
      ['up_depth=101', 'up_depth'],
      ['up_depth=-1', 'up_depth'],
      ['down_depth=101', 'down_depth'],
      ['down_depth=two', 'down_depth'],
      ['edge_type=stitches', 'edge_type'],
      ['get_replies=yes', 'get_replies'],
      ['get_children=2', 'get_children'],
      ['default_path_only=maybe', 'default_path_only'],
    ] as const) {
      expectValidationError(await api.request('GET', `${base}?${query}`, { token: alice.token }), field);
    }
  });
});

describe('edge_type=links', () => {
  it('when messages are stitched, then the walk follows incoming stitches up and outgoing ones down', async () => {
    const alice = await registerWriter(api);
    const [a, b, c, d] = [
      await post(alice, { content: 'a' }),
      await post(alice, { content: 'b' }),
      await post(alice, { content: 'c' }),
      await post(alice, { content: 'd' }),
    ];
    const replyToB = await post(alice, { content: 'reply to b', parent_id: b.id });
    await stitch(alice, a.id, b.id);
    await stitch(alice, b.id, c.id);
    await stitch(alice, c.id, d.id);

    const t = await traverse(alice, b.id, '?edge_type=links&up_depth=1&down_depth=1');
    expect(depths(t)).toEqual({ [a.id]: -1, [b.id]: 0, [c.id]: 1 });
    expect(edgeList(t)).toEqual([`${a.id}>${b.id}:link`, `${b.id}>${c.id}:link`].sort());
    // Reply edges are not links, but replies still describe reply children.
    expect(t.messages.find((m) => m.id === b.id)!.replies).toEqual({ count: 1, ids: [replyToB.id] });

    const replies = await traverse(alice, b.id, '?edge_type=replies');
    expect(depths(replies)).toEqual({ [b.id]: 0, [replyToB.id]: 1 });
  });

  it('when stitches form a cycle, then each message comes once, at its nearest depth', async () => {
    const alice = await registerWriter(api);
    const x = await post(alice, { content: 'x' });
    const y = await post(alice, { content: 'y' });
    const z = await post(alice, { content: 'z' });
    await stitch(alice, x.id, y.id);
    await stitch(alice, y.id, z.id);
    await stitch(alice, z.id, x.id);
    // From x: y is 1 down and 2 up, z is 2 down and 1 up.
    const t = await traverse(alice, x.id, '?edge_type=links&up_depth=5&down_depth=5');
    expect(depths(t)).toEqual({ [x.id]: 0, [y.id]: 1, [z.id]: -1 });
    expect(edgeList(t)).toEqual(
      [`${x.id}>${y.id}:link`, `${y.id}>${z.id}:link`, `${z.id}>${x.id}:link`].sort(),
    );
    // A two-message loop: the tie of -1 and 1 goes to the downward depth.
    const p = await post(alice, { content: 'p' });
    const q = await post(alice, { content: 'q' });
    await stitch(alice, p.id, q.id);
    await stitch(alice, q.id, p.id);
    expect(depths(await traverse(alice, p.id, '?edge_type=links'))).toEqual({ [p.id]: 0, [q.id]: 1 });
  });

  it('when a stitched message is invisible, then the walk does not pass it', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const mine = await post(alice, { content: 'mine', recipients: [bob.tag] });
    const private1 = await post(alice, { content: 'not for bob' });
    const beyond = await post(alice, { content: 'bob sees this', recipients: [bob.tag] });
    await stitch(alice, mine.id, private1.id);
    await stitch(alice, private1.id, beyond.id);
    expect(Object.keys(depths(await traverse(alice, mine.id, '?edge_type=links')))).toHaveLength(3);
    expect(depths(await traverse(bob, mine.id, '?edge_type=links&down_depth=10'))).toEqual({ [mine.id]: 0 });
  });
});

/**
 * root ─┬─ a
 *       ├─ b (default) ─┬─ b1
 *       │               └─ b2 (default) ── b2x
 *       └─ c
 */
describe('default_path_only and get_children', () => {
  let alice: TestUser, bob: TestUser;
  let root: PostedMessage, a: PostedMessage, b: PostedMessage, c: PostedMessage;
  let b1: PostedMessage, b2: PostedMessage, b2x: PostedMessage;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([registerWriter(api), registerUser(api)]);
    root = await post(alice, { content: 'root', recipients: [bob.tag] });
    a = await post(alice, { content: 'a', parent_id: root.id, recipients: [bob.tag] });
    b = await post(alice, { content: 'b', parent_id: root.id, recipients: [bob.tag] });
    c = await post(alice, { content: 'c', parent_id: root.id });
    b1 = await post(alice, { content: 'b1', parent_id: b.id, recipients: [bob.tag] });
    b2 = await post(alice, { content: 'b2', parent_id: b.id, recipients: [bob.tag] });
    b2x = await post(alice, { content: 'b2x', parent_id: b2.id, recipients: [bob.tag] });
    await setDefault(alice, root.id, b.id);
    await setDefault(alice, b.id, b2.id);
  });

  it('when default_path_only is set, then downward follows only the default chain', async () => {
    const t = await traverse(alice, root.id, '?default_path_only=true&down_depth=10');
    expect(depths(t)).toEqual({ [root.id]: 0, [b.id]: 1, [b2.id]: 2 });
    expect(edgeList(t)).toEqual([`${root.id}>${b.id}:reply`, `${b.id}>${b2.id}:reply`].sort());
  });

  it('when default_path_only is set, then upward follows only incoming default edges (decision 027)', async () => {
    // b2 names no default, so b2x is reached through no default edge: nothing above it comes.
    const t = await traverse(alice, b2x.id, '?default_path_only=true&up_depth=3&down_depth=0');
    expect(depths(t)).toEqual({ [b2x.id]: 0 });
    const fromB2 = await traverse(alice, b2.id, '?default_path_only=true&up_depth=3&down_depth=0');
    expect(depths(fromB2)).toEqual({ [root.id]: -2, [b.id]: -1, [b2.id]: 0 });
  });

  it('when get_children is added, then the one-hop children of every returned message join at depth + 1', async () => {
    const t = await traverse(alice, root.id, '?default_path_only=true&get_children=true&down_depth=10');
    expect(depths(t)).toEqual({
      [root.id]: 0,
      [b.id]: 1,
      [b2.id]: 2,
      [a.id]: 1,
      [c.id]: 1,
      [b1.id]: 2,
      [b2x.id]: 3,
    });
    expect(edgeList(t)).toHaveLength(6);
    expect(edgeList(t)).toContain(`${b2.id}>${b2x.id}:reply`);
  });

  it('when get_children is asked upward, then the siblings of the path join too, but not invisible ones', async () => {
    const t = await traverse(bob, b1.id, '?up_depth=2&down_depth=0&get_children=true');
    // c is alice's alone: not visible to bob, so not a child bob gets.
    expect(depths(t)).toEqual({ [root.id]: -2, [b.id]: -1, [b1.id]: 0, [a.id]: -1, [b2.id]: 0 });
  });

  it('when get_children is false (the default), then only walked messages come', async () => {
    const t = await traverse(alice, root.id, '?down_depth=0');
    expect(depths(t)).toEqual({ [root.id]: 0 });
  });

  it('when the default child is not visible to the reader, then the chain stops before it', async () => {
    const t = await traverse(bob, root.id, '?default_path_only=1&down_depth=10');
    expect(depths(t)).toEqual({ [root.id]: 0, [b.id]: 1, [b2.id]: 2 });
    await setDefault(alice, root.id, c.id);
    try {
      expect(depths(await traverse(bob, root.id, '?default_path_only=1&down_depth=10'))).toEqual({
        [root.id]: 0,
      });
    } finally {
      await setDefault(alice, root.id, b.id);
    }
  });
});

describe('answer bounds (security finding #10)', () => {
  /**
   * Posts `contents` in requests of `batch` items, each request's first item replying to `parentId`
   * (in a multi-message post each later item replies to the previous one, so a request is a chain).
   */
  async function chains(user: TestUser, parentId: string, contents: string[], batch: number): Promise<void> {
    for (let start = 0; start < contents.length; start += batch) {
      const body = contents.slice(start, start + batch).map((content) => ({ content, parent_id: parentId }));
      const res = await api.request<{ ok: boolean }[]>('POST', '/v1/messages', { token: user.token, body });
      expect(res.status).toBe(200);
      expect(res.body.every((item) => item.ok)).toBe(true);
    }
  }

  it('when replies hold more content than one answer may, then the nearest that fit come and truncated is true', async () => {
    const alice = await registerWriter(api);
    const rootContent = 'root of long replies';
    const root = await post(alice, { content: rootContent });
    const long = 'x'.repeat(65_536);
    const count = Math.ceil(MAX_TRAVERSAL_CONTENT_CHARS / long.length) + 4;
    await chains(
      alice,
      root.id,
      Array.from({ length: count }, () => long),
      1,
    );

    const t = await traverse(alice, root.id, '?down_depth=1');
    const chars = t.messages.reduce((sum, m) => sum + m.content.length, 0);
    expect(t.truncated).toBe(true);
    expect(chars).toBeLessThanOrEqual(MAX_TRAVERSAL_CONTENT_CHARS);
    expect(t.messages[0]!.id).toBe(root.id);
    expect(t.messages).toHaveLength(
      1 + Math.floor((MAX_TRAVERSAL_CONTENT_CHARS - rootContent.length) / long.length),
    );
    // Edges only between returned messages.
    const ids = new Set(t.messages.map((m) => m.id));
    expect(t.edges.every((e) => ids.has(e.from) && ids.has(e.to))).toBe(true);

    const small = await traverse(alice, root.id, '?down_depth=0');
    expect(small).toMatchObject({ truncated: false, messages: [{ id: root.id }] });
  });

  it('when get_children adds children beyond the node cap, then the answer holds at most the cap and truncated is true', async () => {
    const alice = await registerWriter(api);
    const root = await post(alice, { content: 'root of many chains' });
    // 21 chains of 100 under the root: 21 messages on each level 1..100, more than the cap in all.
    const chainCount = Math.ceil(MAX_TRAVERSAL_NODES / 100) + 1;
    await chains(
      alice,
      root.id,
      Array.from({ length: chainCount * 100 }, (_, i) => `link ${i}`),
      100,
    );

    const t = await traverse(alice, root.id, '?down_depth=100&get_children=true&get_replies=false');
    expect(t.messages).toHaveLength(MAX_TRAVERSAL_NODES);
    expect(t.messages[0]!.id).toBe(root.id);
    expect(t.truncated).toBe(true);
    // Nearest first: every kept level is at most one deeper than the deepest complete one.
    const deepest = Math.max(...t.messages.map((m) => m.depth!));
    expect(deepest).toBeLessThanOrEqual(Math.ceil((MAX_TRAVERSAL_NODES - 1) / chainCount));
  });
});
