// GET /v1/messages/timeline, /v1/messages/inbox, /v1/messages/history and /v1/messages/public, and
// their GraphQL fields (timeline, inbox, history, publicMessages).
// The store is shared with other test files: timeline and public also hold everyone's public
// messages, so their assertions look for this file's messages instead of whole pages.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  postMessage,
  registerUser,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  createChannel,
  expectValidationError,
  idsOf,
  registerChannelOwner,
  view,
  type Page,
} from './thread-fixtures.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const post = (user: TestUser, input: Record<string, unknown>) => postMessage(api, user.token, input);
const bcc = (user: TestUser) => ({ uid: user.uid, public: false });

/**
 * The visibility matrix: author writes to CC and BCC recipients, into a channel, publicly and
 * privately; a third party, a channel member and an anonymous reader look.
 */
describe('visibility matrix', () => {
  let author: TestUser, cc: TestUser, bccUser: TestUser, third: TestUser, member: TestUser;
  let toRecipients: PostedMessage, inChannel: PostedMessage, open: PostedMessage, secret: PostedMessage;
  let channelId: string;

  beforeAll(async () => {
    const owner = await registerChannelOwner(api);
    [author, cc, bccUser, third, member] = await Promise.all([
      registerWriter(api),
      registerUser(api),
      registerUser(api),
      registerUser(api),
      registerUser(api),
    ]);
    channelId = await createChannel(api, owner, [author, member]);
    toRecipients = await post(author, { content: 'to cc and bcc', recipients: [cc.tag, bcc(bccUser)] });
    inChannel = await post(author, { content: 'in the channel', channel_ids: [channelId] });
    open = await post(author, { content: 'for everyone', public: true });
    secret = await post(author, { content: 'only mine' });
  });

  const all = () => [toRecipients.id, inChannel.id, open.id, secret.id];
  const seenBy = async (path: string, user?: TestUser) =>
    idsOf(await view(api, path, user?.token)).filter((id) => all().includes(id));

  it('when each party reads the timeline, then each sees exactly what the visibility rule grants', async () => {
    const path = '/v1/messages/timeline?limit=100';
    expect(await seenBy(path, author)).toEqual([secret.id, open.id, inChannel.id, toRecipients.id]);
    expect(await seenBy(path, cc)).toEqual([open.id, toRecipients.id]);
    expect(await seenBy(path, bccUser)).toEqual([open.id, toRecipients.id]);
    expect(await seenBy(path, third)).toEqual([open.id]);
    expect(await seenBy(path, member)).toEqual([open.id, inChannel.id]);
  });

  it('when someone anonymous reads the timeline, inbox or history, then 401', async () => {
    for (const path of ['/v1/messages/timeline', '/v1/messages/inbox', '/v1/messages/history']) {
      const res = await api.request('GET', path);
      expect(res.status).toBe(401);
    }
  });

  it('when each party reads the inbox, then only the thread with recipients shows, to its sender and recipients', async () => {
    const path = '/v1/messages/inbox?limit=100';
    expect(await seenBy(path, author)).toEqual([toRecipients.id]);
    expect(await seenBy(path, cc)).toEqual([toRecipients.id]);
    expect(await seenBy(path, bccUser)).toEqual([toRecipients.id]);
    expect(await seenBy(path, third)).toEqual([]);
    expect(await seenBy(path, member)).toEqual([]);
  });

  it('when each party reads the history, then only the author has these threads', async () => {
    const path = '/v1/messages/history?limit=100';
    expect(await seenBy(path, author)).toEqual([secret.id, open.id, inChannel.id, toRecipients.id]);
    for (const user of [cc, bccUser, third, member]) expect(await seenBy(path, user)).toEqual([]);
  });

  it('when anyone reads the public view, signed in or not, then only the public message shows', async () => {
    const path = '/v1/messages/public?limit=100';
    expect(await seenBy(path)).toEqual([open.id]);
    for (const user of [author, cc, bccUser, third, member])
      expect(await seenBy(path, user)).toEqual([open.id]);
  });

  it('when the BCC recipient reads the message in a view, then its own BCC entry shows; to the CC recipient it does not', async () => {
    const [asBcc] = (await view(api, '/v1/messages/inbox?limit=100', bccUser.token)).messages.filter(
      (m) => m.id === toRecipients.id,
    );
    const [asCc] = (await view(api, '/v1/messages/inbox?limit=100', cc.token)).messages.filter(
      (m) => m.id === toRecipients.id,
    );
    const uids = (m: unknown) => (m as { recipients: { uid: string }[] }).recipients.map((r) => r.uid);
    expect(uids(asBcc)).toEqual(expect.arrayContaining([cc.uid, bccUser.uid]));
    expect(uids(asCc)).toEqual([cc.uid]);
  });

  it('when an invalid credential is sent to the public view, then 401 even though none is needed', async () => {
    const res = await api.request('GET', '/v1/messages/public', { token: 'svc_session_nope.nope' });
    expect(res.status).toBe(401);
  });

  it('when a credential lacks messages.read, then every view answers 403, the public view too (as search and GraphQL do), and without the credential it answers', async () => {
    const writer = await registerWriter(api, { apiAccess: true });
    const key = await createKey(api, writer.token, { scopes_cap: 'messages.write' });
    for (const path of [
      '/v1/messages/timeline',
      '/v1/messages/inbox',
      '/v1/messages/history',
      `/v1/messages/${open.id}/tree-ids`,
      `/v1/messages/traverse-from/${open.id}`,
      '/v1/messages/public',
      '/v1/messages/search?q=anything',
    ]) {
      const res = await api.request('GET', path, { apiKey: key.key });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'insufficient_scope' });
    }
    const res = await api.request<Page>('GET', '/v1/messages/public?limit=100');
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toContain(open.id);
  });

  describe('channel_id', () => {
    it('when a member filters the timeline by the channel, then only its messages show', async () => {
      const page = await view(api, `/v1/messages/timeline?channel_id=${channelId}`, member.token);
      expect(idsOf(page)).toEqual([inChannel.id]);
      expect(page.has_more).toBe(false);
    });

    it('when a non-member filters by the channel, then 403 not_channel_member on every view', async () => {
      for (const view of ['timeline', 'inbox', 'history']) {
        const res = await api.request('GET', `/v1/messages/${view}?channel_id=${channelId}`, {
          token: third.token,
        });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: 'not_channel_member', detail: expect.any(String) });
      }
    });

    it('when the channel does not exist, then 404 channel_not_found; when malformed, then 422', async () => {
      for (const view of ['timeline', 'inbox', 'history']) {
        const missing = await api.request('GET', `/v1/messages/${view}?channel_id=00000000`, {
          token: member.token,
        });
        expect(missing.status).toBe(404);
        expect(missing.body).toMatchObject({ code: 'channel_not_found' });
        expectValidationError(
          await api.request('GET', `/v1/messages/${view}?channel_id=nope`, { token: member.token }),
          'channel_id',
        );
      }
    });

    it('when the author filters history by the channel, then only the thread written in the channel shows', async () => {
      const page = await view(api, `/v1/messages/history?channel_id=${channelId}`, author.token);
      expect(idsOf(page)).toEqual([inChannel.id]);
    });
  });
});

describe('GET /v1/messages/inbox', () => {
  it('when a thread branches, then each reader gets the newest message of it they can see', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const root = await post(alice, { content: 'question', recipients: [bob.tag] });
    const bobReply = await post(bob, { content: 'answer', parent_id: root.id });
    // A private branch only alice sees: newest for her, invisible to bob.
    const aliceAside = await post(alice, { content: 'note to self', parent_id: root.id });

    expect(idsOf(await view(api, '/v1/messages/inbox', alice.token))).toEqual([aliceAside.id]);
    expect(idsOf(await view(api, '/v1/messages/inbox', bob.token))).toEqual([bobReply.id]);
  });

  it('when someone else posts publicly later in a thread of mine, then that newer message is my entry', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const root = await post(alice, { content: 'to bob', recipients: [bob.tag] });
    const reply = await post(bob, { content: 'bob to carol', parent_id: root.id, recipients: [carol.tag] });
    const later = await post(carol, { content: 'carol in public', parent_id: reply.id, public: true });
    expect(idsOf(await view(api, '/v1/messages/inbox', alice.token))).toEqual([later.id]);
    expect(idsOf(await view(api, '/v1/messages/inbox', carol.token))).toEqual([later.id]);
  });

  it('when an old thread of mine gets newer visible activity, then it outranks newer threads page by page', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const t1 = await post(bob, { content: 't1', recipients: [alice.tag, carol.tag] });
    const t2 = await post(bob, { content: 't2', recipients: [alice.tag] });
    const t3 = await post(bob, { content: 't3', recipients: [alice.tag] });
    // Newest of all, in the oldest thread, visible to alice without involving her.
    const late = await post(carol, { content: 'late and public', parent_id: t1.id, public: true });
    // Newer than t3, in t2, but invisible to alice: t2 keeps its own entry and its place.
    await post(bob, { content: 'bob alone', parent_id: t2.id });

    const pages = [];
    for (let skip = 0; skip < 3; skip++)
      pages.push(await view(api, `/v1/messages/inbox?limit=1&skip=${skip}`, alice.token));
    expect(pages.map(idsOf)).toEqual([[late.id], [t3.id], [t2.id]]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
  });

  it('when only an older message of my long thread has a recipient, then the thread still counts, at its newest message', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const t1 = await post(alice, { content: 't1 to bob', recipients: [bob.tag] });
    const t2 = await post(alice, { content: 't2 to bob', recipients: [bob.tag] });
    // Newer own replies in t1 with no recipient: the thread qualifies through t1's root only.
    let tip = t1;
    for (let i = 0; i < 4; i++) tip = await post(alice, { content: `aside ${i}`, parent_id: tip.id });

    const pages = [];
    for (let skip = 0; skip < 2; skip++)
      pages.push(await view(api, `/v1/messages/inbox?limit=1&skip=${skip}`, alice.token));
    expect(pages.map(idsOf)).toEqual([[tip.id], [t2.id]]);
    // Bob cannot see the asides: his entry for t1 is the message he received.
    expect(idsOf(await view(api, '/v1/messages/inbox', bob.token))).toEqual([t2.id, t1.id]);
  });

  it('when I post without recipients or only to myself, then the thread is no inbox entry of mine unless I receive it', async () => {
    const alice = await registerWriter(api);
    await post(alice, { content: 'alone' });
    const toSelf = await post(alice, { content: 'to me', recipients: [alice.tag] });
    // Writing to oneself is a receivers edge, which is what puts a thread into an inbox.
    expect(idsOf(await view(api, '/v1/messages/inbox', alice.token))).toEqual([toSelf.id]);
  });

  it('when threads are entered, then entries are newest first, one per thread', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const first = await post(alice, { content: 'first', recipients: [bob.tag] });
    const second = await post(alice, { content: 'second', recipients: [bob.tag] });
    const reply = await post(bob, { content: 'revives first', parent_id: first.id });
    const page = await view(api, '/v1/messages/inbox', bob.token);
    expect(idsOf(page)).toEqual([reply.id, second.id]);
    expect(page).toMatchObject({ skip: 0, limit: 15, has_more: false });
  });

  it('when unread_only is set, then only threads with an unread receivers edge of mine stay', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const unread = await post(alice, { content: 'unread', recipients: [bob.tag] });
    const read = await post(alice, { content: 'will be read', recipients: [bob.tag] });
    const sentByBob = await post(bob, { content: 'bob writes', recipients: [alice.tag] });
    const marked = await api.request('POST', `/v1/messages/${read.id}/read`, {
      token: bob.token,
      body: { read: true },
    });
    expect(marked.status).toBe(200);

    expect(idsOf(await view(api, '/v1/messages/inbox', bob.token))).toEqual([
      sentByBob.id,
      read.id,
      unread.id,
    ]);
    expect(idsOf(await view(api, '/v1/messages/inbox?unread_only=true', bob.token))).toEqual([unread.id]);
    expect(idsOf(await view(api, '/v1/messages/inbox?unread_only=false', bob.token))).toHaveLength(3);
    // Alice's threads with bob are there because she sent them, not because she has anything unread...
    expect(idsOf(await view(api, '/v1/messages/inbox', alice.token))).toEqual([
      sentByBob.id,
      read.id,
      unread.id,
    ]);
    // ...except bob's message to her.
    expect(idsOf(await view(api, '/v1/messages/inbox?unread_only=1', alice.token))).toEqual([sentByBob.id]);
  });

  it('when unread_only is not a boolean, then 422', async () => {
    const bob = await registerUser(api);
    expectValidationError(
      await api.request('GET', '/v1/messages/inbox?unread_only=maybe', { token: bob.token }),
      'unread_only',
    );
  });

  it('when filtered by a channel, then only threads whose messages in it concern me show', async () => {
    const owner = await registerChannelOwner(api);
    const [alice, bob] = await Promise.all([registerWriter(api), registerUser(api)]);
    const channelId = await createChannel(api, owner, [alice, bob]);
    const inside = await post(alice, {
      content: 'in channel',
      recipients: [bob.tag],
      channel_ids: [channelId],
    });
    const outside = await post(alice, { content: 'elsewhere', recipients: [bob.tag] });
    // Newer, in the thread, but outside the channel: it does not count under the filter.
    const insideFollowUp = await post(alice, { content: 'follow-up outside', parent_id: inside.id });

    expect(idsOf(await view(api, '/v1/messages/inbox', bob.token))).toEqual([outside.id, inside.id]);
    expect(idsOf(await view(api, `/v1/messages/inbox?channel_id=${channelId}`, bob.token))).toEqual([
      inside.id,
    ]);
    expect(idsOf(await view(api, '/v1/messages/inbox', alice.token))).toEqual([
      insideFollowUp.id,
      outside.id,
    ]);
    expect(idsOf(await view(api, `/v1/messages/inbox?channel_id=${channelId}`, alice.token))).toEqual([
      inside.id,
    ]);
  });
});

describe('GET /v1/messages/history', () => {
  it('when I wrote in several threads, then one root each, ordered by my latest message there', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const older = await post(bob, { content: 'older thread', recipients: [alice.tag] });
    const newer = await post(bob, { content: 'newer thread', recipients: [alice.tag] });
    await post(alice, { content: 'in older', parent_id: older.id });
    await post(alice, { content: 'in newer', parent_id: newer.id });
    const branch = await post(alice, { content: 'older again, another branch', parent_id: older.id });
    await post(alice, { content: 'deeper', parent_id: branch.id });
    // bob's later activity does not move alice's history.
    await post(bob, { content: 'bob in newer', parent_id: newer.id });

    expect(idsOf(await view(api, '/v1/messages/history', alice.token))).toEqual([older.id, newer.id]);
    expect(idsOf(await view(api, '/v1/messages/history', bob.token))).toEqual([newer.id, older.id]);
  });

  it('when I cannot see the root of a thread I wrote in, then my earliest message there stands for it', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const hiddenRoot = await post(bob, { content: 'bob alone' });
    const shared = await post(bob, {
      content: 'now with alice',
      parent_id: hiddenRoot.id,
      recipients: [alice.tag],
    });
    const aliceFirst = await post(alice, { content: 'alice first', parent_id: shared.id });
    await post(alice, { content: 'alice second', parent_id: aliceFirst.id });

    const page = await view(api, '/v1/messages/history', alice.token);
    expect(idsOf(page)).toEqual([aliceFirst.id]);
    // The root shown is the topmost ancestor alice sees, never the hidden one.
    expect(page.messages[0]!.root_id).toBe(shared.id);
  });

  it('when no limit is given, then the default is 6', async () => {
    const alice = await registerWriter(api);
    const roots: string[] = [];
    for (let i = 0; i < 7; i++) roots.push((await post(alice, { content: `thread ${i}` })).id);
    const page = await view(api, '/v1/messages/history', alice.token);
    expect(page).toMatchObject({ skip: 0, limit: 6, has_more: true });
    expect(idsOf(page)).toEqual(roots.slice(1).reverse());
  });
});

describe('GET /v1/messages/public', () => {
  it('when a thread has several public messages among private ones, then its newest public message stands for it', async () => {
    const alice = await registerWriter(api);
    const root = await post(alice, { content: 'public root', public: true });
    const hidden = await post(alice, { content: 'private reply', parent_id: root.id });
    const newestPublic = await post(alice, { content: 'public reply', parent_id: hidden.id, public: true });
    await post(alice, { content: 'private and newest', parent_id: root.id });
    const privateThread = await post(alice, { content: 'no public here' });

    const ids = idsOf(await view(api, '/v1/messages/public?limit=100'));
    expect(ids).toContain(newestPublic.id);
    expect(ids).not.toContain(root.id);
    expect(ids).not.toContain(hidden.id);
    expect(ids).not.toContain(privateThread.id);
  });

  it('when two threads have public messages, then the one with the newer public message comes first', async () => {
    const alice = await registerWriter(api);
    const first = await post(alice, { content: 'first', public: true });
    const second = await post(alice, { content: 'second', public: true });
    const firstAgain = await post(alice, { content: 'first again', public: true, parent_id: first.id });
    const ids = idsOf(await view(api, '/v1/messages/public?limit=100'));
    expect(ids.indexOf(firstAgain.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(firstAgain.id)).toBeLessThan(ids.indexOf(second.id));
  });
});

describe('pagination', () => {
  let alice: TestUser, bob: TestUser;
  let channelId: string;
  let threads: PostedMessage[];
  beforeAll(async () => {
    [alice, bob] = await Promise.all([registerChannelOwner(api), registerUser(api)]);
    channelId = await createChannel(api, alice, [bob]);
    threads = [];
    for (let i = 0; i < 3; i++) {
      threads.push(
        await post(alice, { content: `page ${i}`, recipients: [bob.tag], channel_ids: [channelId] }),
      );
    }
  });

  it('when a page is smaller than the rest, then has_more is true, and the last page says false', async () => {
    const newestFirst = threads.map((t) => t.id).reverse();
    // The timeline holds everyone's public messages; the channel keeps it to this test's messages.
    for (const path of ['/v1/messages/inbox?', `/v1/messages/timeline?channel_id=${channelId}&`]) {
      const first = await view(api, `${path}limit=2`, bob.token);
      expect(first).toMatchObject({ skip: 0, limit: 2, has_more: true });
      expect(idsOf(first)).toEqual(newestFirst.slice(0, 2));
      const last = await view(api, `${path}skip=2&limit=2`, bob.token);
      expect(last).toMatchObject({ skip: 2, limit: 2, has_more: false });
      expect(idsOf(last)).toEqual(newestFirst.slice(2));
      const exact = await view(api, `${path}limit=3`, bob.token);
      expect(exact.has_more).toBe(false);
      const beyond = await view(api, `${path}skip=10`, bob.token);
      expect(beyond).toMatchObject({ messages: [], skip: 10, has_more: false });
    }
  });

  it('when the history pages, then has_more and skip work there too', async () => {
    const first = await view(api, '/v1/messages/history?limit=1&skip=1', alice.token);
    expect(idsOf(first)).toEqual([threads[1]!.id]);
    expect(first.has_more).toBe(true);
  });

  it('when no limit is given, then the defaults are 15 (timeline, inbox, public) and 6 (history)', async () => {
    expect((await view(api, '/v1/messages/timeline', bob.token)).limit).toBe(15);
    expect((await view(api, '/v1/messages/inbox', bob.token)).limit).toBe(15);
    expect((await view(api, '/v1/messages/public')).limit).toBe(15);
    expect((await view(api, '/v1/messages/history', bob.token)).limit).toBe(6);
  });

  it('when skip or limit is out of range or not a number, then 422 on that field', async () => {
    for (const path of ['timeline', 'inbox', 'history', 'public']) {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=1.5', 'limit'],
        ['limit=ten', 'limit'],
        ['skip=-1', 'skip'],
      ] as const) {
        const res = await api.request('GET', `/v1/messages/${path}?${query}`, { token: bob.token });
        expectValidationError(res, field);
      }
    }
  });

  it('when limit is 100, then it is accepted', async () => {
    expect((await view(api, '/v1/messages/inbox?limit=100', bob.token)).limit).toBe(100);
  });
});

describe('GraphQL views', () => {
  interface GqlPage {
    messages: { id: string; content: string; author: { uid: string } }[];
    skip: number;
    limit: number;
    has_more: boolean;
  }
  const FIELDS = 'messages { id content author { uid } } skip limit has_more';

  it('when the views are queried, then they answer what REST answers', async () => {
    const owner = await registerChannelOwner(api);
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const channelId = await createChannel(api, owner, [alice, bob]);
    const first = await post(alice, { content: 'gql one', recipients: [bob.tag], channel_ids: [channelId] });
    const second = await post(alice, { content: 'gql two', recipients: [bob.tag], public: true });
    await api.request('POST', `/v1/messages/${second.id}/read`, { token: bob.token, body: { read: true } });

    const res = await api.graphql<Record<string, GqlPage>>(
      `query($channel: String) {
        timeline(limit: 100) { ${FIELDS} }
        inChannel: timeline(channel_id: $channel) { ${FIELDS} }
        inbox { ${FIELDS} }
        unread: inbox(unread_only: true) { ${FIELDS} }
        history(skip: 0, limit: 5) { ${FIELDS} }
        channelHistory: history(channel_id: $channel) { ${FIELDS} }
      }`,
      { channel: channelId },
      { token: bob.token },
    );
    expect(res.body.errors).toBeUndefined();
    const data = res.body.data!;
    expect(idsOf(data.timeline!).filter((id) => [first.id, second.id].includes(id))).toEqual([
      second.id,
      first.id,
    ]);
    expect(data.timeline!.limit).toBe(100);
    expect(idsOf(data.inChannel!)).toEqual([first.id]);
    expect(idsOf(data.inbox!)).toEqual([second.id, first.id]);
    expect(data.inbox!.messages[0]!.author.uid).toBe(alice.uid);
    expect(idsOf(data.unread!)).toEqual([first.id]);
    expect(data.history).toEqual({ messages: [], skip: 0, limit: 5, has_more: false });
    expect(idsOf(data.channelHistory!)).toEqual([]);

    const rest = await view(api, '/v1/messages/inbox', bob.token);
    expect(idsOf(rest)).toEqual(idsOf(data.inbox!));
  });

  it('when publicMessages is asked anonymously, then it answers; the other views need a caller', async () => {
    const alice = await registerWriter(api);
    const open = await post(alice, { content: 'gql public', public: true });
    const res = await api.graphql<{ publicMessages: GqlPage }>(
      `{ publicMessages(limit: 100) { ${FIELDS} } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(idsOf(res.body.data!.publicMessages)).toContain(open.id);

    const denied = await api.graphql('{ timeline { has_more } }');
    expect(denied.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_authenticated', status: 401 });
  });

  it('when arguments are out of range or the channel is not mine, then the REST errors come back', async () => {
    const owner = await registerChannelOwner(api);
    const bob = await registerUser(api);
    const channelId = await createChannel(api, owner, []);
    const bad = await api.graphql('{ inbox(limit: 0) { has_more } }', {}, { token: bob.token });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    const skip = await api.graphql('{ publicMessages(skip: -1) { has_more } }');
    expect(skip.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    const outsider = await api.graphql(
      'query($c: String) { history(channel_id: $c) { has_more } }',
      { c: channelId },
      { token: bob.token },
    );
    expect(outsider.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_channel_member', status: 403 });
  });
});
