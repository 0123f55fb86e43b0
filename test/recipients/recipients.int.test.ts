// Recipients: POST /v1/recipients/add (forms, idempotency, propagation NONE / ANCESTORS / TREE),
// DELETE /v1/recipients/remove (permissions, propagate_to_descendants), BCC privacy with recipients
// added later by someone other than the author, and the same operations over GraphQL.
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

interface Recipient {
  uid: string;
  user_tag: string;
  public: boolean;
  added_by: string | null;
  read_at: string | null;
}

interface Message {
  id: string;
  recipients: Recipient[];
}

interface Change {
  message_id: string;
  uid: string;
}

interface AddResponse {
  message_ids: string[];
  added: Change[];
  unchanged: Change[];
}

interface RemoveResponse {
  message_ids: string[];
  removed: Change[];
  unchanged: Change[];
}

interface ErrorBody {
  code: string;
  detail: unknown;
}

const MISSING_ID = 'ffffff01';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let erin: TestUser;
let reader: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob, carol, dave, erin, reader] = await Promise.all([
    registerWriter(api),
    registerWriter(api),
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

const add = <T = AddResponse>(token: string | undefined, body: unknown) =>
  api.request<T>('POST', '/v1/recipients/add', { token, body });

const remove = <T = RemoveResponse>(token: string | undefined, body: unknown) =>
  api.request<T>('DELETE', '/v1/recipients/remove', { token, body });

const view = (token: string, id: string) => api.request<Message>('GET', `/v1/messages/${id}`, { token });

async function recipientsSeenBy(user: TestUser, id: string): Promise<Recipient[]> {
  const res = await view(user.token, id);
  expect(res.status).toBe(200);
  return res.body.recipients;
}

async function uidsSeenBy(user: TestUser, id: string): Promise<string[]> {
  return (await recipientsSeenBy(user, id)).map((r) => r.uid).sort();
}

function expectError(res: ApiResponse<unknown>, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as ErrorBody).code }).toEqual({ status, code });
}

const changes = (uid: string, ...ids: string[]): Change[] => ids.map((message_id) => ({ message_id, uid }));
const sortChanges = (list: Change[]) =>
  [...list].sort((a, b) => (a.message_id + a.uid).localeCompare(b.message_id + b.uid));

describe('POST /v1/recipients/add', () => {
  it('when the author adds a recipient, then it is added, listed as CC by the author, and can now see the message', async () => {
    const m = await post(alice);
    expect((await view(bob.token, m.id)).status).toBe(404);
    const res = await add(alice.token, { message_id: m.id, recipients: [bob.tag] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_ids: [m.id], added: changes(bob.uid, m.id), unchanged: [] });
    expect(await recipientsSeenBy(bob, m.id)).toEqual([
      { uid: bob.uid, user_tag: bob.tag, public: true, added_by: alice.uid, read_at: null },
    ]);
  });

  it('when recipients are named in every form, then each resolves and a user named twice counts once', async () => {
    const m = await post(alice);
    const res = await add(alice.token, {
      message_id: m.id,
      recipients: [
        bob.tag.toUpperCase(),
        `@${carol.tag}`,
        `uid:${dave.uid}`,
        { user_tag: `@${erin.tag}` },
        { uid: bob.uid, public: false },
      ],
    });
    expect(res.status).toBe(200);
    expect(sortChanges(res.body.added)).toEqual(
      sortChanges([bob, carol, dave, erin].map((u) => ({ message_id: m.id, uid: u.uid }))),
    );
    // The first mention decided bob's flag: CC.
    const asAuthor = await recipientsSeenBy(alice, m.id);
    expect(asAuthor.find((r) => r.uid === bob.uid)?.public).toBe(true);
    expect(asAuthor).toHaveLength(4);
  });

  it('when anyone who can see a message adds a recipient, then it is added with that person as added_by', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    const res = await add(bob.token, { message_id: m.id, recipients: [carol.tag] });
    expect(res.status).toBe(200);
    const entry = (await recipientsSeenBy(alice, m.id)).find((r) => r.uid === carol.uid);
    expect(entry).toMatchObject({ public: true, added_by: bob.uid });
    expect((await view(carol.token, m.id)).status).toBe(200);
  });

  it('when the same recipient is added again, by anyone, as CC or BCC, then it is unchanged and keeps its first added_by and flag', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    const first = await add(bob.token, { message_id: m.id, recipients: [carol.tag] });
    expect(first.body.added).toEqual(changes(carol.uid, m.id));
    const again = await add(bob.token, { message_id: m.id, recipients: [carol.tag] });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ message_ids: [m.id], added: [], unchanged: changes(carol.uid, m.id) });
    const byAuthor = await add(alice.token, {
      message_id: m.id,
      recipients: [{ user_tag: carol.tag, public: false }, dave.tag],
    });
    expect(byAuthor.body.unchanged).toEqual(changes(carol.uid, m.id));
    expect(byAuthor.body.added).toEqual(changes(dave.uid, m.id));
    const carolEntries = (await recipientsSeenBy(alice, m.id)).filter((r) => r.uid === carol.uid);
    expect(carolEntries).toEqual([expect.objectContaining({ public: true, added_by: bob.uid })]);
    // The recipients the post itself added are just as much "first adds".
    const bobAgain = await add(carol.token, { message_id: m.id, recipients: [bob.tag] });
    expect(bobAgain.body.unchanged).toEqual(changes(bob.uid, m.id));
    expect((await recipientsSeenBy(alice, m.id)).find((r) => r.uid === bob.uid)?.added_by).toBe(alice.uid);
  });

  it('when message_id and message_ids are both given, then every named message is affected once, in order', async () => {
    const [a, b, c] = [await post(alice), await post(alice), await post(alice)];
    const res = await add(alice.token, {
      message_id: b.id,
      message_ids: [a.id, b.id, c.id],
      recipients: [bob.tag],
    });
    expect(res.status).toBe(200);
    expect(res.body.message_ids).toEqual([b.id, a.id, c.id]);
    expect(res.body.added).toEqual(changes(bob.uid, b.id, a.id, c.id));
    for (const m of [a, b, c]) expect(await uidsSeenBy(alice, m.id)).toEqual([bob.uid]);
  });

  it('when message ids or recipients are missing or empty, then 400 missing_field', async () => {
    const m = await post(alice);
    for (const body of [
      { recipients: [bob.tag] },
      { message_ids: [], recipients: [bob.tag] },
      { message_id: m.id },
      { message_id: m.id, recipients: [] },
      {},
    ]) {
      expectError(await add(alice.token, body), 400, 'missing_field');
    }
    expect(await uidsSeenBy(alice, m.id)).toEqual([]);
  });

  it('when recipients is present but empty, then the 400 says it must name someone, not that it is missing', async () => {
    const m = await post(alice);
    const res = await add<{ detail: string }>(alice.token, { message_id: m.id, recipients: [] });
    expectError(res, 400, 'missing_field');
    expect(res.body.detail).toBe('The field recipients must name at least one user.');
  });

  it('when the input is malformed, then 422 validation_error', async () => {
    const m = await post(alice);
    for (const body of [
      { message_id: 'nope', recipients: [bob.tag] },
      { message_id: m.id, recipients: [{ user_tag: bob.tag, uid: bob.uid }] },
      { message_id: m.id, recipients: [bob.tag], propagation: { strategy: 'SIDEWAYS' } },
      { message_id: m.id, recipients: [bob.tag], extra: true },
      { message_id: m.id, recipients: 'not-a-list' },
    ]) {
      expectError(await add(alice.token, body), 422, 'validation_error');
    }
  });

  it('when the caller lacks messages.write, then 403 and nothing is added', async () => {
    const m = await post(alice, { recipients: [reader.tag] });
    expectError(
      await add(reader.token, { message_id: m.id, recipients: [bob.tag] }),
      403,
      'insufficient_scope',
    );
    expect(await uidsSeenBy(alice, m.id)).toEqual([reader.uid]);
  });

  it('when no credentials are sent, then 401', async () => {
    const m = await post(alice);
    expectError(await add(undefined, { message_id: m.id, recipients: [bob.tag] }), 401, 'not_authenticated');
  });

  it('when one named message is invisible to the caller, then the same 404 as a missing one and nothing is written', async () => {
    const visible = await post(alice, { recipients: [bob.tag] });
    const hidden = await post(alice);
    const missing = await add(bob.token, { message_ids: [visible.id, MISSING_ID], recipients: [carol.tag] });
    expectError(missing, 404, 'message_not_found');
    const invisible = await add(bob.token, { message_ids: [visible.id, hidden.id], recipients: [carol.tag] });
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual(missing.body);
    expect(await uidsSeenBy(alice, visible.id)).toEqual([bob.uid]);
    expect(await uidsSeenBy(alice, hidden.id)).toEqual([]);
  });

  it('when a recipient is unknown, then 404 user_not_found and no one is added', async () => {
    const m = await post(alice);
    for (const unknown of ['no-such-user-zz', 'uid:00000000', { uid: '0000000a' }]) {
      expectError(
        await add(alice.token, { message_id: m.id, recipients: [bob.tag, unknown] }),
        404,
        'user_not_found',
      );
    }
    expect(await uidsSeenBy(alice, m.id)).toEqual([]);
  });

  it('when notify is false, then the add still happens', async () => {
    const m = await post(alice);
    const res = await add(alice.token, {
      message_id: m.id,
      recipients: [{ user_tag: bob.tag, notify: false }],
    });
    expect(res.body.added).toEqual(changes(bob.uid, m.id));
  });
});

describe('POST /v1/recipients/add with propagation', () => {
  /** root → a → b → c, all by alice with bob as CC; a sibling s of a; and another thread. */
  async function chain() {
    const root = await post(alice, { recipients: [bob.tag] });
    const a = await post(alice, { parent_id: root.id, recipients: [bob.tag] });
    const b = await post(alice, { parent_id: a.id, recipients: [bob.tag] });
    const c = await post(alice, { parent_id: b.id, recipients: [bob.tag] });
    const s = await post(alice, { parent_id: root.id, recipients: [bob.tag] });
    const elsewhere = await post(alice, { recipients: [bob.tag] });
    return { root, a, b, c, s, elsewhere };
  }

  it('when the strategy is NONE or absent, then only the named messages get the recipient', async () => {
    const { root, a, b, c } = await chain();
    for (const propagation of [undefined, { strategy: 'NONE' }, {}]) {
      const res = await add(bob.token, {
        message_id: b.id,
        recipients: [carol.tag],
        ...(propagation && { propagation }),
      });
      expect(res.status).toBe(200);
      expect(res.body.message_ids).toEqual([b.id]);
    }
    for (const m of [root, a, c]) expect(await uidsSeenBy(alice, m.id)).not.toContain(carol.uid);
    expect(await uidsSeenBy(alice, b.id)).toContain(carol.uid);
  });

  it('when the strategy is ANCESTORS, then the named message and every visible ancestor get it, and nothing below or beside', async () => {
    const { root, a, b, c, s, elsewhere } = await chain();
    const res = await add(bob.token, {
      message_id: b.id,
      recipients: [carol.tag],
      propagation: { strategy: 'ANCESTORS' },
    });
    expect(res.status).toBe(200);
    expect(res.body.message_ids).toEqual([b.id, root.id, a.id]);
    expect(sortChanges(res.body.added)).toEqual(sortChanges(changes(carol.uid, b.id, root.id, a.id)));
    for (const m of [root, a, b]) {
      expect((await recipientsSeenBy(alice, m.id)).find((r) => r.uid === carol.uid)).toMatchObject({
        added_by: bob.uid,
        public: true,
      });
    }
    for (const m of [c, s, elsewhere]) expect(await uidsSeenBy(alice, m.id)).not.toContain(carol.uid);
  });

  it('when an ancestor is invisible to the caller, then the walk stops there, even if higher ones are visible', async () => {
    // top (bob sees) → gap (bob does not) → mid (bob sees) → leaf (bob sees)
    const top = await post(carol, { recipients: [bob.tag] });
    const gap = await post(carol, { parent_id: top.id });
    const mid = await post(carol, { parent_id: gap.id, recipients: [bob.tag] });
    const leaf = await post(carol, { parent_id: mid.id, recipients: [bob.tag] });
    const res = await add(bob.token, {
      message_id: leaf.id,
      recipients: [dave.tag],
      propagation: { strategy: 'ANCESTORS' },
    });
    expect(res.status).toBe(200);
    expect(res.body.message_ids).toEqual([leaf.id, mid.id]);
    expect(await uidsSeenBy(carol, leaf.id)).toContain(dave.uid);
    expect(await uidsSeenBy(carol, mid.id)).toContain(dave.uid);
    expect(await uidsSeenBy(carol, gap.id)).not.toContain(dave.uid);
    expect(await uidsSeenBy(carol, top.id)).not.toContain(dave.uid);
    expect((await view(dave.token, top.id)).status).toBe(404);
  });

  it('when the strategy is TREE, then every visible message of the thread gets it (ancestors, descendants, siblings), and no other thread', async () => {
    const { root, a, b, c, s, elsewhere } = await chain();
    const hiddenBranch = await post(alice, { parent_id: a.id });
    const res = await add(bob.token, {
      message_id: b.id,
      recipients: [carol.tag],
      propagation: { strategy: 'TREE' },
    });
    expect(res.status).toBe(200);
    expect(res.body.message_ids).toEqual([b.id, root.id, a.id, c.id, s.id]);
    expect(res.body.added).toEqual(changes(carol.uid, b.id, root.id, a.id, c.id, s.id));
    for (const m of [root, a, b, c, s]) expect(await uidsSeenBy(alice, m.id)).toContain(carol.uid);
    expect(await uidsSeenBy(alice, hiddenBranch.id)).not.toContain(carol.uid);
    expect(await uidsSeenBy(alice, elsewhere.id)).not.toContain(carol.uid);
  });

  it('when propagating over edges that partly exist, then only the missing ones are added and the rest are unchanged', async () => {
    const { root, a, b, c, s } = await chain();
    await add(alice.token, { message_id: a.id, recipients: [dave.tag] });
    const res = await add(bob.token, {
      message_id: c.id,
      recipients: [dave.tag],
      propagation: { strategy: 'TREE' },
    });
    expect(res.body.unchanged).toEqual(changes(dave.uid, a.id));
    expect(sortChanges(res.body.added)).toEqual(sortChanges(changes(dave.uid, c.id, root.id, b.id, s.id)));
    expect((await recipientsSeenBy(alice, a.id)).find((r) => r.uid === dave.uid)?.added_by).toBe(alice.uid);
  });
});

describe('BCC privacy', () => {
  it('when a third person adds a BCC recipient, then only the author, that adder and the recipient see the entry', async () => {
    const stranger = await registerWriter(api);
    const m = await post(alice, { public: true, recipients: [bob.tag, erin.tag] });
    const res = await add(bob.token, {
      message_id: m.id,
      recipients: [{ user_tag: dave.tag, public: false }],
    });
    expect(res.body.added).toEqual(changes(dave.uid, m.id));

    const bcc = { uid: dave.uid, user_tag: dave.tag, public: false, added_by: bob.uid, read_at: null };
    expect(await recipientsSeenBy(alice, m.id)).toContainEqual(bcc);
    expect(await recipientsSeenBy(bob, m.id)).toContainEqual(bcc);
    expect(await recipientsSeenBy(dave, m.id)).toContainEqual(bcc);
    expect(await uidsSeenBy(erin, m.id)).toEqual([bob.uid, erin.uid].sort());
    expect(await uidsSeenBy(stranger, m.id)).toEqual([bob.uid, erin.uid].sort());

    const viaGraphql = await api.graphql<{ message: { recipients: { uid: string }[] } }>(
      'query ($id: String!) { message(message_id: $id) { recipients { uid } } }',
      { id: m.id },
      { token: erin.token },
    );
    expect(viaGraphql.body.data?.message.recipients.map((r) => r.uid).sort()).toEqual(
      [bob.uid, erin.uid].sort(),
    );
  });

  it('when the author adds a BCC recipient, then other recipients do not see it but the BCC recipient can read the message', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    await add(alice.token, { message_id: m.id, recipients: [{ uid: carol.uid, public: false }] });
    expect(await uidsSeenBy(bob, m.id)).toEqual([bob.uid]);
    expect(await uidsSeenBy(carol, m.id)).toEqual([bob.uid, carol.uid].sort());
    expect(await uidsSeenBy(alice, m.id)).toEqual([bob.uid, carol.uid].sort());
  });

  it('when BCC recipients are added by propagation, then every affected message hides them the same way', async () => {
    const root = await post(alice, { recipients: [bob.tag, erin.tag] });
    const reply = await post(alice, { parent_id: root.id, recipients: [bob.tag, erin.tag] });
    await add(bob.token, {
      message_id: reply.id,
      recipients: [{ user_tag: dave.tag, public: false }],
      propagation: { strategy: 'ANCESTORS' },
    });
    for (const m of [root, reply]) {
      expect(await uidsSeenBy(erin, m.id)).not.toContain(dave.uid);
      expect(await uidsSeenBy(bob, m.id)).toContain(dave.uid);
      expect(await uidsSeenBy(alice, m.id)).toContain(dave.uid);
      expect(await uidsSeenBy(dave, m.id)).toContain(dave.uid);
    }
  });

  it('when someone not shown a BCC entry tries to remove it, then it counts as absent (unchanged), not 403, and stays', async () => {
    const m = await post(alice, { recipients: [bob.tag, erin.tag] });
    await add(bob.token, { message_id: m.id, recipients: [{ user_tag: dave.tag, public: false }] });
    const res = await remove(erin.token, { recipient_uid: dave.uid, message_id: m.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_ids: [m.id], removed: [], unchanged: changes(dave.uid, m.id) });
    const visibleCc = await remove(erin.token, { recipient_uid: bob.uid, message_id: m.id });
    expectError(visibleCc, 403, 'forbidden');
    expect(await uidsSeenBy(alice, m.id)).toEqual([bob.uid, dave.uid, erin.uid].sort());
  });
});

describe('DELETE /v1/recipients/remove', () => {
  it('when the author removes a recipient, then the edge goes and the recipient loses sight of the message', async () => {
    const m = await post(alice, { recipients: [bob.tag, carol.tag] });
    const res = await remove(alice.token, { recipient_uid: bob.uid, message_id: m.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_ids: [m.id], removed: changes(bob.uid, m.id), unchanged: [] });
    expect(await uidsSeenBy(alice, m.id)).toEqual([carol.uid]);
    expect((await view(bob.token, m.id)).status).toBe(404);
  });

  it('when the recipient removes itself, then it goes', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    const res = await remove(bob.token, { recipient_uid: bob.uid, message_id: m.id });
    expect(res.body.removed).toEqual(changes(bob.uid, m.id));
    expect(await uidsSeenBy(alice, m.id)).toEqual([]);
  });

  it('when the adder (not the author) removes the recipient it added, then it goes', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    await add(bob.token, { message_id: m.id, recipients: [{ user_tag: carol.tag, public: false }] });
    const res = await remove(bob.token, { recipient_uid: carol.uid, message_id: m.id });
    expect(res.body.removed).toEqual(changes(carol.uid, m.id));
    expect(await uidsSeenBy(alice, m.id)).toEqual([bob.uid]);
  });

  it("when the author's manager removes a recipient of the managed user's message, then it goes", async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token);
    const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    const m = await postMessage(api, delegated.body.access_token, {
      content: 'bot message',
      recipients: [manager.tag, bob.tag],
    });
    const res = await remove(manager.token, { recipient_uid: bob.uid, message_id: m.id });
    expect(res.status).toBe(200);
    expect(res.body.removed).toEqual(changes(bob.uid, m.id));
  });

  it('when someone else (neither author, adder nor recipient) removes a recipient, then 403 and nothing is removed from any message', async () => {
    const mine = await post(carol, { recipients: [bob.tag] });
    const theirs = await post(alice, { recipients: [bob.tag, carol.tag] });
    const res = await remove(carol.token, { recipient_uid: bob.uid, message_ids: [mine.id, theirs.id] });
    expectError(res, 403, 'forbidden');
    expect(await uidsSeenBy(carol, mine.id)).toEqual([bob.uid]);
    expect(await uidsSeenBy(alice, theirs.id)).toEqual([bob.uid, carol.uid].sort());
  });

  it('when the recipient has no edge on a named message, then that message is unchanged', async () => {
    const [a, b] = [await post(alice, { recipients: [bob.tag] }), await post(alice)];
    const res = await remove(alice.token, { recipient_uid: bob.uid, message_ids: [a.id, b.id] });
    expect(res.body).toEqual({
      message_ids: [a.id, b.id],
      removed: changes(bob.uid, a.id),
      unchanged: changes(bob.uid, b.id),
    });
  });

  it('when propagate_to_descendants is set, then every visible descendant edge the caller may remove goes, others stay and are listed unchanged', async () => {
    // m (alice) → d1 (alice) → d2 (bob, added dave himself) ; d1 → gap (bob, alice cannot see) → under (bob)
    const m = await post(alice, { recipients: [bob.tag, dave.tag] });
    const d1 = await post(alice, { parent_id: m.id, recipients: [bob.tag, dave.tag] });
    const d2 = await post(bob, { parent_id: d1.id, recipients: [alice.tag, dave.tag] });
    const gap = await post(bob, { parent_id: d1.id, recipients: [dave.tag] });
    const under = await post(bob, { parent_id: gap.id, recipients: [alice.tag, dave.tag] });
    const noEdge = await post(alice, { parent_id: d1.id });

    const res = await remove(alice.token, {
      recipient_uid: dave.uid,
      message_id: m.id,
      propagate_to_descendants: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message_ids: [m.id, d1.id, d2.id],
      removed: changes(dave.uid, m.id, d1.id),
      unchanged: changes(dave.uid, d2.id),
    });
    expect(await uidsSeenBy(alice, d2.id)).toContain(dave.uid);
    expect(await uidsSeenBy(bob, under.id)).toContain(dave.uid);
    expect(await uidsSeenBy(bob, gap.id)).toContain(dave.uid);
    expect(res.body.message_ids).not.toContain(noEdge.id);
  });

  it('when propagate_to_descendants is not set, then descendants keep the recipient', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    const child = await post(alice, { parent_id: m.id, recipients: [bob.tag] });
    const res = await remove(alice.token, { recipient_uid: bob.uid, message_id: m.id });
    expect(res.body.message_ids).toEqual([m.id]);
    expect(await uidsSeenBy(alice, child.id)).toEqual([bob.uid]);
  });

  it('when the recipient removes itself from a branch, then every edge it holds down the branch goes', async () => {
    const m = await post(alice, { recipients: [bob.tag, carol.tag] });
    const child = await post(carol, { parent_id: m.id, recipients: [bob.tag, alice.tag] });
    const res = await remove(bob.token, {
      recipient_uid: bob.uid,
      message_id: m.id,
      propagate_to_descendants: true,
    });
    expect(res.body.removed).toEqual(changes(bob.uid, m.id, child.id));
    expect((await view(bob.token, child.id)).status).toBe(404);
  });

  it('when recipient_uid or the message ids are missing, then 400 missing_field', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    for (const body of [
      { message_id: m.id },
      { recipient_uid: bob.uid },
      { recipient_uid: bob.uid, message_ids: [] },
      {},
    ]) {
      expectError(await remove(alice.token, body), 400, 'missing_field');
    }
    expect(await uidsSeenBy(alice, m.id)).toEqual([bob.uid]);
  });

  it('when the input is malformed, then 422 validation_error', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    for (const body of [
      { recipient_uid: bob.tag, message_id: m.id },
      { recipient_uid: bob.uid, message_id: 'xyz' },
      { recipient_uid: bob.uid, message_id: m.id, propagate_to_descendants: 'yes' },
    ]) {
      expectError(await remove(alice.token, body), 422, 'validation_error');
    }
  });

  it('when the caller lacks messages.write, then 403', async () => {
    const m = await post(alice, { recipients: [reader.tag] });
    expectError(
      await remove(reader.token, { recipient_uid: reader.uid, message_id: m.id }),
      403,
      'insufficient_scope',
    );
    expect(await uidsSeenBy(alice, m.id)).toEqual([reader.uid]);
  });

  it('when no credentials are sent, then 401', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    expectError(
      await remove(undefined, { recipient_uid: bob.uid, message_id: m.id }),
      401,
      'not_authenticated',
    );
  });

  it('when a named message is invisible or missing, then the same 404 and nothing is removed', async () => {
    const visible = await post(alice, { recipients: [bob.tag, carol.tag] });
    const hidden = await post(alice, { recipients: [bob.tag] });
    const missing = await remove(carol.token, {
      recipient_uid: carol.uid,
      message_ids: [visible.id, MISSING_ID],
    });
    expectError(missing, 404, 'message_not_found');
    const invisible = await remove(carol.token, {
      recipient_uid: carol.uid,
      message_ids: [visible.id, hidden.id],
    });
    expect(invisible.body).toEqual(missing.body);
    expect(await uidsSeenBy(alice, visible.id)).toEqual([bob.uid, carol.uid].sort());
  });

  it('when the recipient does not exist, then 404 user_not_found', async () => {
    const m = await post(alice);
    expectError(
      await remove(alice.token, { recipient_uid: '0000000b', message_id: m.id }),
      404,
      'user_not_found',
    );
  });
});

describe('GraphQL recipients', () => {
  const ADD = `mutation ($input: AddRecipientsInput!) {
    addRecipients(input: $input) { message_ids added { message_id uid } unchanged { message_id uid } }
  }`;
  const REMOVE = `mutation ($input: RemoveRecipientsInput!) {
    removeRecipients(input: $input) { message_ids removed { message_id uid } unchanged { message_id uid } }
  }`;

  it('when adding and removing over GraphQL, then the answers and effects match REST', async () => {
    const root = await post(alice, { recipients: [bob.tag] });
    const reply = await post(alice, { parent_id: root.id, recipients: [bob.tag] });
    const added = await api.graphql<{ addRecipients: AddResponse }>(
      ADD,
      {
        input: {
          message_id: reply.id,
          recipients: [{ user_tag: carol.tag, public: false }, { uid: dave.uid }],
          propagation: { strategy: 'ANCESTORS' },
        },
      },
      { token: bob.token },
    );
    expect(added.body.errors).toBeUndefined();
    expect(added.body.data?.addRecipients.message_ids).toEqual([reply.id, root.id]);
    expect(added.body.data?.addRecipients.added).toHaveLength(4);
    expect(await recipientsSeenBy(alice, root.id)).toContainEqual(
      expect.objectContaining({ uid: carol.uid, public: false, added_by: bob.uid }),
    );

    const again = await api.graphql<{ addRecipients: AddResponse }>(
      ADD,
      { input: { message_ids: [reply.id], recipients: [{ user_tag: carol.tag }] } },
      { token: alice.token },
    );
    expect(again.body.data?.addRecipients).toEqual({
      message_ids: [reply.id],
      added: [],
      unchanged: changes(carol.uid, reply.id),
    });

    const removed = await api.graphql<{ removeRecipients: RemoveResponse }>(
      REMOVE,
      { input: { recipient_uid: carol.uid, message_id: root.id, propagate_to_descendants: true } },
      { token: bob.token },
    );
    expect(removed.body.errors).toBeUndefined();
    expect(removed.body.data?.removeRecipients).toEqual({
      message_ids: [root.id, reply.id],
      removed: changes(carol.uid, root.id, reply.id),
      unchanged: [],
    });
    expect(await uidsSeenBy(alice, reply.id)).toEqual([bob.uid, dave.uid].sort());
  });

  it('when a GraphQL recipients operation fails, then the error carries the REST code and status', async () => {
    const m = await post(alice, { recipients: [bob.tag] });
    const hidden = await post(alice);
    const cases: [string, string, Record<string, unknown>, string, number][] = [
      [ADD, bob.token, { message_id: m.id, recipients: [] }, 'missing_field', 400],
      [ADD, bob.token, { recipients: [{ user_tag: carol.tag }] }, 'missing_field', 400],
      [
        ADD,
        reader.token,
        { message_id: m.id, recipients: [{ user_tag: carol.tag }] },
        'insufficient_scope',
        403,
      ],
      [
        ADD,
        bob.token,
        { message_id: hidden.id, recipients: [{ user_tag: carol.tag }] },
        'message_not_found',
        404,
      ],
      [
        ADD,
        bob.token,
        { message_id: m.id, recipients: [{ user_tag: 'nobody-here-zz' }] },
        'user_not_found',
        404,
      ],
      [ADD, bob.token, { message_id: m.id, recipients: [{}] }, 'validation_error', 422],
      [REMOVE, carol.token, { recipient_uid: bob.uid, message_id: m.id }, 'message_not_found', 404],
      [REMOVE, dave.token, { recipient_uid: bob.uid, message_id: m.id }, 'message_not_found', 404],
      [REMOVE, bob.token, { recipient_uid: alice.uid, message_id: 'bad' }, 'validation_error', 422],
    ];
    await add(alice.token, { message_id: m.id, recipients: [erin.tag] });
    cases.push([REMOVE, erin.token, { recipient_uid: bob.uid, message_id: m.id }, 'forbidden', 403]);
    for (const [query, token, input, code, status] of cases) {
      const res = await api.graphql(query, { input }, { token });
      expect({ input, extensions: res.body.errors?.[0]?.extensions }).toEqual({
        input,
        extensions: expect.objectContaining({ code, status }),
      });
    }
    expect(await uidsSeenBy(alice, m.id)).toEqual([bob.uid, erin.uid].sort());
  });
});

describe('OpenAPI', () => {
  it('when the document is read, then both recipient routes are described with their errors', async () => {
    const res = await api.request<{
      paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>>;
    }>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const added = res.body.paths['/v1/recipients/add']?.post;
    expect(added?.description).toContain('ANCESTORS');
    expect(Object.keys(added?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '422',
      '429',
    ]);
    const removed = res.body.paths['/v1/recipients/remove']?.delete;
    expect(removed?.description).toContain('propagate_to_descendants');
    expect(Object.keys(removed?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '422',
    ]);
  });
});
