// GET /v1/messages/traverse-from/{message_id} with default_path_only, and the GraphQL field traverse:
// incoming default edges (docs/decisions/027-incoming-default-edges.md). A default edge is an edge of
// the walk's type from a message to the child its default_outgoing names; downward the walk follows
// the chain of default children, upward only parents whose default child is the message below.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  postMessage,
  registerUser,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ViewMessage } from './thread-fixtures.js';

interface Traversal {
  origin_id: string;
  messages: (ViewMessage & { default_outgoing: string | null })[];
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

async function traverse(user: TestUser, id: string, query: string): Promise<Traversal> {
  const res = await api.request<Traversal>('GET', `/v1/messages/traverse-from/${id}?${query}`, {
    token: user.token,
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

async function unstitch(user: TestUser, from: string, to: string): Promise<void> {
  const res = await api.request('DELETE', `/v1/links/messages/${from}/${to}`, { token: user.token });
  expect(res.status).toBe(200);
}

async function setDefault(user: TestUser, id: string, child: string | null): Promise<void> {
  const res = await api.request('PATCH', `/v1/messages/${id}/default_outgoing`, {
    token: user.token,
    body: { default_outgoing: child },
  });
  expect(res.status).toBe(200);
}

const UP = 'default_path_only=true&up_depth=10&down_depth=0';
const BOTH = 'default_path_only=true&up_depth=10&down_depth=10';

/**
 * Reply edges, defaults marked *:
 *
 * root ─┬─ a* ─┬─ a1* ── a1x*
 *       │      └─ a2 ── a2x*
 *       └─ b ── b1*
 */
describe('edge_type=replies', () => {
  let alice: TestUser;
  let root: PostedMessage, a: PostedMessage, a1: PostedMessage, a1x: PostedMessage;
  let a2: PostedMessage, a2x: PostedMessage, b: PostedMessage, b1: PostedMessage;
  beforeAll(async () => {
    alice = await registerWriter(api);
    root = await post(alice, { content: 'root' });
    a = await post(alice, { content: 'a', parent_id: root.id });
    b = await post(alice, { content: 'b', parent_id: root.id });
    a1 = await post(alice, { content: 'a1', parent_id: a.id });
    a2 = await post(alice, { content: 'a2', parent_id: a.id });
    a1x = await post(alice, { content: 'a1x', parent_id: a1.id });
    a2x = await post(alice, { content: 'a2x', parent_id: a2.id });
    b1 = await post(alice, { content: 'b1', parent_id: b.id });
    await setDefault(alice, root.id, a.id);
    await setDefault(alice, a.id, a1.id);
    await setDefault(alice, a1.id, a1x.id);
    await setDefault(alice, a2.id, a2x.id);
    await setDefault(alice, b.id, b1.id);
  });

  it('when every ancestor edge is a default edge, then the walk goes up to the root', async () => {
    const t = await traverse(alice, a1x.id, UP);
    expect(depths(t)).toEqual({ [root.id]: -3, [a.id]: -2, [a1.id]: -1, [a1x.id]: 0 });
    expect(edgeList(t)).toEqual(
      [`${root.id}>${a.id}:reply`, `${a.id}>${a1.id}:reply`, `${a1.id}>${a1x.id}:reply`].sort(),
    );
    expect(t.truncated).toBe(false);
  });

  it('when an ancestor is reached through a non-default edge, then the walk stops below that edge', async () => {
    // a2x is a2's default, but a2 is not a's (a1 is): a and root do not come.
    expect(depths(await traverse(alice, a2x.id, UP))).toEqual({ [a2.id]: -1, [a2x.id]: 0 });
    // b1 is b's default, but b is not root's.
    expect(depths(await traverse(alice, b1.id, UP))).toEqual({ [b.id]: -1, [b1.id]: 0 });
    // The origin itself not being its parent's default ends the walk at once.
    expect(depths(await traverse(alice, a2.id, UP))).toEqual({ [a2.id]: 0 });
  });

  it('when default_path_only is off, then the same walks reach every ancestor as before', async () => {
    const t = await traverse(alice, a2x.id, 'up_depth=10&down_depth=0');
    expect(depths(t)).toEqual({ [root.id]: -3, [a.id]: -2, [a2.id]: -1, [a2x.id]: 0 });
  });

  it('when the parent changes its default, then the upward walk follows the new default edge', async () => {
    await setDefault(alice, a.id, a2.id);
    try {
      expect(depths(await traverse(alice, a2x.id, UP))).toEqual({
        [root.id]: -3,
        [a.id]: -2,
        [a2.id]: -1,
        [a2x.id]: 0,
      });
      expect(depths(await traverse(alice, a1x.id, UP))).toEqual({ [a1.id]: -1, [a1x.id]: 0 });
    } finally {
      await setDefault(alice, a.id, a1.id);
    }
  });

  it('when default_path_only walks down, then it still follows the single chain of default children', async () => {
    const t = await traverse(alice, root.id, 'default_path_only=true&up_depth=0&down_depth=10');
    expect(depths(t)).toEqual({ [root.id]: 0, [a.id]: 1, [a1.id]: 2, [a1x.id]: 3 });
    // A message in the middle: the default path through it, both ways.
    expect(depths(await traverse(alice, a1.id, BOTH))).toEqual({
      [root.id]: -2,
      [a.id]: -1,
      [a1.id]: 0,
      [a1x.id]: 1,
    });
    // From a2: nothing above (not a's default), its own default chain below.
    expect(depths(await traverse(alice, a2.id, BOTH))).toEqual({ [a2.id]: 0, [a2x.id]: 1 });
  });

  it('when up_depth is smaller than the default chain, then the walk stops at the depth', async () => {
    const t = await traverse(alice, a1x.id, 'default_path_only=true&up_depth=2&down_depth=0');
    expect(depths(t)).toEqual({ [a.id]: -2, [a1.id]: -1, [a1x.id]: 0 });
  });

  it('when get_children is added, then the siblings of the default path join as before', async () => {
    const t = await traverse(alice, a1.id, `${UP}&get_children=true`);
    // a1's own child a1x, a's other child a2 and root's other child b join at their parent depth + 1.
    expect(depths(t)).toEqual({
      [root.id]: -2,
      [a.id]: -1,
      [b.id]: -1,
      [a1.id]: 0,
      [a2.id]: 0,
      [a1x.id]: 1,
    });
  });
});

/**
 * Stitches, defaults marked *:
 *
 * s0 ─*→ s1 ─*→ t ─*→ u
 *        s2 ─*→ t ──→ v
 *        s3 ──→ t          (s3 names its reply child r3 as default)
 */
describe('edge_type=links', () => {
  let alice: TestUser;
  let s0: PostedMessage, s1: PostedMessage, s2: PostedMessage, s3: PostedMessage, r3: PostedMessage;
  let t: PostedMessage, u: PostedMessage, v: PostedMessage;
  beforeAll(async () => {
    alice = await registerWriter(api);
    [s0, s1, s2, s3, t, u, v] = [
      await post(alice, { content: 's0' }),
      await post(alice, { content: 's1' }),
      await post(alice, { content: 's2' }),
      await post(alice, { content: 's3' }),
      await post(alice, { content: 't' }),
      await post(alice, { content: 'u' }),
      await post(alice, { content: 'v' }),
    ];
    r3 = await post(alice, { content: 'r3', parent_id: s3.id });
    for (const [from, to] of [
      [s0, s1],
      [s1, t],
      [s2, t],
      [s3, t],
      [t, u],
      [t, v],
    ] as const) {
      await stitch(alice, from.id, to.id);
    }
    await setDefault(alice, s0.id, s1.id);
    await setDefault(alice, s1.id, t.id);
    await setDefault(alice, s2.id, t.id);
    await setDefault(alice, s3.id, r3.id);
    await setDefault(alice, t.id, u.id);
  });

  it('when default_path_only is set with links, then 200 with every stitch parent that names the message its default', async () => {
    const res = await traverse(alice, t.id, `edge_type=links&${BOTH}`);
    expect(depths(res)).toEqual({ [s0.id]: -2, [s1.id]: -1, [s2.id]: -1, [t.id]: 0, [u.id]: 1 });
    expect(edgeList(res)).toEqual(
      [
        `${s0.id}>${s1.id}:link`,
        `${s1.id}>${t.id}:link`,
        `${s2.id}>${t.id}:link`,
        `${t.id}>${u.id}:link`,
      ].sort(),
    );
  });

  it('when a stitch parent names a reply child as its default, then it is not an incoming default link', async () => {
    const ids = Object.keys(depths(await traverse(alice, t.id, `edge_type=links&${UP}`)));
    expect(ids).not.toContain(s3.id);
    // Without the flag every stitch parent comes.
    const all = await traverse(alice, t.id, 'edge_type=links&up_depth=1&down_depth=0');
    expect(depths(all)).toEqual({ [s1.id]: -1, [s2.id]: -1, [s3.id]: -1, [t.id]: 0 });
    // And in a replies walk that reply child is reached through s3's default edge.
    expect(depths(await traverse(alice, r3.id, UP))).toEqual({ [s3.id]: -1, [r3.id]: 0 });
  });

  it('when the default stitch is removed, then its parent no longer comes; drawn again, it counts again', async () => {
    await unstitch(alice, s2.id, t.id);
    try {
      expect(depths(await traverse(alice, t.id, `edge_type=links&${UP}`))).toEqual({
        [s0.id]: -2,
        [s1.id]: -1,
        [t.id]: 0,
      });
    } finally {
      await stitch(alice, s2.id, t.id);
    }
    // The stored default names t again once the stitch is back, as s2's own output shows.
    const again = await traverse(alice, t.id, `edge_type=links&${UP}`);
    expect(Object.keys(depths(again))).toContain(s2.id);
    expect(again.messages.find((m) => m.id === s2.id)!.default_outgoing).toBe(t.id);
  });

  it('when one child is both a reply child and a stitch child, then each walk uses its own edge type', async () => {
    const p = await post(alice, { content: 'p' });
    const c = await post(alice, { content: 'c', parent_id: p.id });
    await stitch(alice, p.id, c.id);
    await setDefault(alice, p.id, c.id);
    const replies = await traverse(alice, c.id, UP);
    expect(depths(replies)).toEqual({ [p.id]: -1, [c.id]: 0 });
    expect(edgeList(replies)).toEqual([`${p.id}>${c.id}:reply`]);
    const links = await traverse(alice, c.id, `edge_type=links&${UP}`);
    expect(depths(links)).toEqual({ [p.id]: -1, [c.id]: 0 });
    expect(edgeList(links)).toEqual([`${p.id}>${c.id}:link`]);
  });

  it('when default stitches form a cycle, then each message comes once and the walk ends', async () => {
    const x = await post(alice, { content: 'x' });
    const y = await post(alice, { content: 'y' });
    await stitch(alice, x.id, y.id);
    await stitch(alice, y.id, x.id);
    await setDefault(alice, x.id, y.id);
    await setDefault(alice, y.id, x.id);
    const res = await traverse(alice, x.id, `edge_type=links&${BOTH}`);
    expect(depths(res)).toEqual({ [x.id]: 0, [y.id]: 1 });
  });
});

describe('visibility', () => {
  let alice: TestUser, bob: TestUser;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([registerWriter(api), registerUser(api)]);
  });

  /** root ─*→ hidden ─*→ y ─*→ z: every edge a default one; bob may see all but `hidden`. */
  it('when a message on the default chain is invisible, then the walk stops at it both ways', async () => {
    const root = await post(alice, { content: 'root', recipients: [bob.tag] });
    const hidden = await post(alice, { content: 'not for bob', parent_id: root.id });
    const y = await post(alice, { content: 'y', parent_id: hidden.id, recipients: [bob.tag] });
    const z = await post(alice, { content: 'z', parent_id: y.id, recipients: [bob.tag] });
    await setDefault(alice, root.id, hidden.id);
    await setDefault(alice, hidden.id, y.id);
    await setDefault(alice, y.id, z.id);

    expect(depths(await traverse(alice, z.id, UP))).toEqual({
      [root.id]: -3,
      [hidden.id]: -2,
      [y.id]: -1,
      [z.id]: 0,
    });
    const up = await traverse(bob, z.id, UP);
    expect(depths(up)).toEqual({ [y.id]: -1, [z.id]: 0 });
    // root is visible to bob (y's root_id names it) but lies beyond the hidden message.
    expect(JSON.stringify(up)).not.toContain(hidden.id);
    const down = await traverse(bob, root.id, 'default_path_only=true&up_depth=0&down_depth=10');
    expect(depths(down)).toEqual({ [root.id]: 0 });
    expect(JSON.stringify(down)).not.toContain(hidden.id);
  });

  it('when the parent’s default child is invisible to the reader, then the answer is as if it had no default', async () => {
    const parent = await post(alice, { content: 'parent', recipients: [bob.tag] });
    const shown = await post(alice, { content: 'shown', parent_id: parent.id, recipients: [bob.tag] });
    const hidden = await post(alice, { content: 'hidden', parent_id: parent.id });
    await setDefault(alice, parent.id, hidden.id);

    const withHiddenDefault = await traverse(bob, shown.id, UP);
    expect(depths(withHiddenDefault)).toEqual({ [shown.id]: 0 });
    const seen = await api.request<{ default_outgoing: string | null }>('GET', `/v1/messages/${parent.id}`, {
      token: bob.token,
    });
    expect(seen.body.default_outgoing).toBeNull();

    await setDefault(alice, parent.id, null);
    expect(await traverse(bob, shown.id, UP)).toEqual(withHiddenDefault);
    await setDefault(alice, parent.id, shown.id);
    expect(depths(await traverse(bob, shown.id, UP))).toEqual({ [parent.id]: -1, [shown.id]: 0 });
  });

  it('when an invisible message stitches to the origin and names it its default, then it does not come', async () => {
    const origin = await post(alice, { content: 'origin', recipients: [bob.tag] });
    const open = await post(alice, { content: 'open', recipients: [bob.tag] });
    const secret = await post(alice, { content: 'secret' });
    await stitch(alice, open.id, origin.id);
    await stitch(alice, secret.id, origin.id);
    await setDefault(alice, open.id, origin.id);
    await setDefault(alice, secret.id, origin.id);

    expect(depths(await traverse(alice, origin.id, `edge_type=links&${UP}`))).toEqual({
      [open.id]: -1,
      [secret.id]: -1,
      [origin.id]: 0,
    });
    const res = await traverse(bob, origin.id, `edge_type=links&${UP}`);
    expect(depths(res)).toEqual({ [open.id]: -1, [origin.id]: 0 });
    expect(JSON.stringify(res)).not.toContain(secret.id);
  });

  it('when the origin is invisible, then the same 404 as a missing one, with default_path_only too', async () => {
    const secret = await post(alice, { content: 'secret' });
    const hidden = await api.request('GET', `/v1/messages/traverse-from/${secret.id}?${BOTH}`, {
      token: bob.token,
    });
    const missing = await api.request('GET', `/v1/messages/traverse-from/00000000?${BOTH}`, {
      token: bob.token,
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
  });
});

describe('GraphQL', () => {
  interface GraphqlTraversal {
    origin_id: string;
    messages: { depth: number; message: { id: string } }[];
    edges: { from: string; to: string; type: string }[];
    truncated: boolean;
  }

  async function graphqlTraverse(
    user: TestUser,
    id: string,
    edgeType: 'replies' | 'links',
  ): Promise<GraphqlTraversal> {
    const res = await api.graphql<{ traverse: GraphqlTraversal }>(
      `query($id: String!) {
        traverse(message_id: $id, up_depth: 10, down_depth: 10, edge_type: ${edgeType}, default_path_only: true) {
          origin_id
          messages { depth message { id } }
          edges { from to type }
          truncated
        }
      }`,
      { id },
      { token: user.token },
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.traverse;
  }

  const asRest = (t: GraphqlTraversal) => ({
    origin_id: t.origin_id,
    messages: t.messages.map((m) => [m.message.id, m.depth]),
    edges: t.edges,
    truncated: t.truncated,
  });
  const restShape = (t: Traversal) => ({
    origin_id: t.origin_id,
    messages: t.messages.map((m) => [m.id, m.depth]),
    edges: t.edges,
    truncated: t.truncated,
  });

  it('when default_path_only is asked in GraphQL, then the answer is the REST one, for replies and links', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerUser(api)]);
    const root = await post(alice, { content: 'root', recipients: [bob.tag] });
    const mid = await post(alice, { content: 'mid', parent_id: root.id, recipients: [bob.tag] });
    const side = await post(alice, { content: 'side', parent_id: root.id, recipients: [bob.tag] });
    const leaf = await post(alice, { content: 'leaf', parent_id: mid.id, recipients: [bob.tag] });
    const secret = await post(alice, { content: 'secret' });
    await setDefault(alice, root.id, mid.id);
    await setDefault(alice, mid.id, leaf.id);
    await stitch(alice, side.id, mid.id);
    await stitch(alice, secret.id, mid.id);
    await stitch(alice, mid.id, leaf.id);
    await setDefault(alice, side.id, mid.id);
    await setDefault(alice, secret.id, mid.id);

    for (const user of [alice, bob]) {
      for (const edgeType of ['replies', 'links'] as const) {
        const rest = await traverse(user, mid.id, `edge_type=${edgeType}&${BOTH}`);
        expect(asRest(await graphqlTraverse(user, mid.id, edgeType))).toEqual(restShape(rest));
      }
    }
    // The walks themselves, so that parity is not parity of two empty answers.
    expect(depths(await traverse(bob, mid.id, `edge_type=links&${BOTH}`))).toEqual({
      [side.id]: -1,
      [mid.id]: 0,
      [leaf.id]: 1,
    });
    expect(depths(await traverse(alice, mid.id, `edge_type=links&${BOTH}`))).toEqual({
      [side.id]: -1,
      [secret.id]: -1,
      [mid.id]: 0,
      [leaf.id]: 1,
    });
    expect(depths(await traverse(bob, mid.id, BOTH))).toEqual({ [root.id]: -1, [mid.id]: 0, [leaf.id]: 1 });
  });
});
