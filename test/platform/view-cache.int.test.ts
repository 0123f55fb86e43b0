// The view cache (src/platform/http/view-cache.ts): the signed-in answers of the cacheable message
// reads (a message, the timeline, a thread, a traversal, tree ids, a conversation, unread counts, a
// search, a channel's messages) are kept for a few seconds per (caller, permissions, acting
// manager, URL). A kept answer must never reach another caller or a weaker credential, must never
// outlive a write that changes what it shows (recipients, channel membership, deletion, edits,
// tags, reactions, new posts), and must never be handed to a credential that has ended (logout, key
// revocation, password change). Each invalidation test first proves the answer is kept (the second
// read of the same URL moves skein_view_cache_lookups_total{outcome="hit"}), then makes the change,
// then reads the very same URL with the very same credential again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, createChannel, registerCreator } from '../channels/channel-helpers.js';
import {
  WRITER_SCOPES,
  createKey,
  grant,
  postMessage,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import type { Token } from '../support/api-types.js';
import {
  startTestServer,
  type ApiResponse,
  type RequestOptions,
  type TestServer,
} from '../support/test-server.js';

const METRICS_TOKEN = 'view-cache-metrics-token-0123456789';
const HIT_SERIES = /^skein_view_cache_lookups_total\{[^}]*outcome="hit"[^}]*\} (\S+)$/m;

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer({ SKEIN_METRICS_TOKEN: METRICS_TOKEN });
});
afterAll(async () => {
  await api.close();
});

interface Message {
  id: string;
  content: string;
  tags: string[];
  reactions: { reaction: string; count: number; me: boolean }[];
  recipients: { uid: string }[];
}

interface Page {
  messages: Message[];
  skip: number;
  limit: number;
  has_more: boolean;
}

interface Traversal {
  origin_id: string;
  messages: { id: string }[];
}

interface TreeIds {
  root_id: string | null;
  ids: string[];
}

interface Unread {
  total_messages: number;
  total_threads: number;
  threads: { root_id: string | null; unread_count: number; latest_message_id: string }[];
}

interface ErrorBody {
  code: string;
}

/** How many lookups this server's view cache has answered from what it kept, so far. */
async function hitsNow(): Promise<number> {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const match = HIT_SERIES.exec(await res.text());
  return match ? Number(match[1]) : 0;
}

/** A word no other test uses, so the shared store cannot disturb search results. */
function word(): string {
  return `w${randomBytes(5).toString('hex')}`;
}

const bearer = (user: { token: string }): RequestOptions => ({ token: user.token });

function get<T>(path: string, credentials: RequestOptions): Promise<ApiResponse<T>> {
  return api.request<T>('GET', path, credentials);
}

/**
 * Reads `path` twice with the same credentials and proves the second answer came from the cache:
 * the hit counter moved between the two reads, and the body is the same. Answers the second read.
 */
async function readCached<T>(path: string, credentials: RequestOptions): Promise<ApiResponse<T>> {
  const first = await get<T>(path, credentials);
  expect({ path, status: first.status }).toEqual({ path, status: 200 });
  const before = await hitsNow();
  const second = await get<T>(path, credentials);
  expect({ path, status: second.status }).toEqual({ path, status: 200 });
  expect(await hitsNow()).toBeGreaterThanOrEqual(before + 1);
  expect(second.body).toEqual(first.body);
  return second;
}

/** Reads `path` once and proves the answer came from the cache (the hit counter moved). */
async function expectHit<T>(path: string, credentials: RequestOptions): Promise<ApiResponse<T>> {
  const before = await hitsNow();
  const res = await get<T>(path, credentials);
  expect(res.status).toBe(200);
  expect(await hitsNow()).toBeGreaterThanOrEqual(before + 1);
  return res;
}

/** Reads `path` once and proves the answer did not come from the cache (the hit counter stayed). */
async function expectMiss<T>(path: string, credentials: RequestOptions): Promise<ApiResponse<T>> {
  const before = await hitsNow();
  const res = await get<T>(path, credentials);
  expect(res.status).toBe(200);
  expect(await hitsNow()).toBe(before);
  return res;
}

/** Three users who may post to each other, made before anything is kept. */
function threeWriters(): Promise<[TestUser, TestUser, TestUser]> {
  return Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
}

const ids = (page: { messages: { id: string }[] }) => page.messages.map((m) => m.id);
const codeOf = (res: ApiResponse<unknown>) => ({ status: res.status, code: (res.body as ErrorBody).code });

// Public messages of every test file share the timeline: a page of 100 keeps ours on it.
const TIMELINE = '/v1/messages/timeline?limit=100';

describe('who a kept answer is given to', () => {
  let alice: TestUser;
  let bob: TestUser;
  let message: PostedMessage;
  beforeAll(async () => {
    // Every user and message is made before anything is cached: making them empties the cache.
    [alice, bob] = await Promise.all([registerWriter(api, { apiAccess: true }), registerWriter(api)]);
    message = await postMessage(api, alice.token, { content: `only for alice ${word()}` });
  });

  it('when the same caller reads the same URL twice, then the same body, the second from the cache', async () => {
    const res = await readCached<Message>(`/v1/messages/${message.id}`, bearer(alice));
    expect(res.body).toMatchObject({ id: message.id, content: message.content });
  });

  it('when another user asks the URL alice has a kept answer for, then 404, never her answer', async () => {
    const path = `/v1/messages/${message.id}`;
    await readCached(path, bearer(alice));
    const res = await get(path, bearer(bob));
    expect(codeOf(res)).toEqual({ status: 404, code: 'message_not_found' });
    // Her answer was still kept all along: nothing emptied the cache in between.
    await expectHit(path, bearer(alice));
  });

  it('when alice asks through an API-key session without messages.read, then 403, not her kept 200', async () => {
    const path = `/v1/messages/${message.id}`;
    const { key } = await createKey(api, alice.token);
    const minted = await api.request<Token>('POST', '/v1/auth/token', {
      apiKey: key,
      body: { requested_permissions: 'messages.write' },
    });
    expect(minted.status).toBe(200);
    await readCached(path, bearer(alice));

    const res = await get(path, { token: minted.body.access_token });
    expect(codeOf(res)).toEqual({ status: 403, code: 'insufficient_scope' });
    // Her answer was kept while the weaker session was refused.
    await expectHit(path, bearer(alice));
  });

  it('when alice asks with an API key capped below messages.read, then 403, not her kept 200', async () => {
    const path = `/v1/messages/${message.id}`;
    const { key } = await createKey(api, alice.token, { scopes_cap: 'messages.write' });
    await readCached(path, bearer(alice));

    const res = await get(path, { apiKey: key });
    expect(codeOf(res)).toEqual({ status: 403, code: 'insufficient_scope' });
    await expectHit(path, bearer(alice));
  });

  it('when another user or an anonymous caller searches the URL alice has a kept answer for, then they get nothing of hers', async () => {
    const w = word();
    const mine = await postMessage(api, alice.token, { content: `secret ${w}` });
    const path = `/v1/messages/search?q=${w}`;
    const kept = await readCached<Page>(path, bearer(alice));
    expect(ids(kept.body)).toEqual([mine.id]);

    const other = await get<Page>(path, bearer(bob));
    expect(other.status).toBe(200);
    expect(other.body.messages).toEqual([]);
    const anonymous = await get<Page>(path, {});
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.messages).toEqual([]);
    await expectHit(path, bearer(alice));
  });

  it('when an administrator takes messages.read away from alice, then her session gets 403 on the URL it had kept', async () => {
    const carol = await registerWriter(api);
    const own = await postMessage(api, carol.token, { content: 'soon out of reach' });
    const path = `/v1/messages/${own.id}`;
    await readCached(path, bearer(carol));

    await grant(api, carol.uid, { scopes: WRITER_SCOPES.filter((scope) => scope !== 'messages.read') });
    const res = await get(path, bearer(carol));
    expect(codeOf(res)).toEqual({ status: 403, code: 'insufficient_scope' });
  });
});

describe('recipient removal', () => {
  it('when the author removes a recipient, then the recipient’s kept message is 404 and its kept timeline drops it', async () => {
    const [alice, bob, carol] = await threeWriters();
    const message = await postMessage(api, alice.token, {
      content: `to bob and carol ${word()}`,
      recipients: [bob.tag, carol.tag],
    });
    const path = `/v1/messages/${message.id}`;
    await readCached(path, bearer(bob));
    expect(ids((await readCached<Page>(TIMELINE, bearer(bob))).body)).toContain(message.id);

    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: alice.token,
      body: { recipient_uid: bob.uid, message_id: message.id },
    });
    expect(removed.status).toBe(200);

    expect(codeOf(await get(path, bearer(bob)))).toEqual({ status: 404, code: 'message_not_found' });
    const timeline = await get<Page>(TIMELINE, bearer(bob));
    expect(timeline.status).toBe(200);
    expect(ids(timeline.body)).not.toContain(message.id);
    // Carol is still a recipient and still sees it.
    expect((await get(path, bearer(carol))).status).toBe(200);
  });
});

describe('channel membership', () => {
  async function channelWithMessage(): Promise<{
    alice: TestUser;
    bob: TestUser;
    channelId: string;
    message: PostedMessage;
  }> {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await createChannel(api, alice.token);
    await addMember(api, alice.token, channel.id, { uid: bob.uid });
    const message = await postMessage(api, alice.token, {
      content: `in the channel ${word()}`,
      channel_ids: [channel.id],
    });
    return { alice, bob, channelId: channel.id, message };
  }

  /** Bob keeps the channel's messages, his timeline and the message itself, each showing the message. */
  async function keepBobsViews(bob: TestUser, channelId: string, messageId: string): Promise<void> {
    const listed = await readCached<Page>(`/v1/channels/${channelId}/messages`, bearer(bob));
    expect(ids(listed.body)).toEqual([messageId]);
    expect(ids((await readCached<Page>(TIMELINE, bearer(bob))).body)).toContain(messageId);
    await readCached(`/v1/messages/${messageId}`, bearer(bob));
  }

  async function expectBobOutside(bob: TestUser, channelId: string, messageId: string): Promise<void> {
    expect(codeOf(await get(`/v1/channels/${channelId}/messages`, bearer(bob)))).toEqual({
      status: 403,
      code: 'not_channel_member',
    });
    const timeline = await get<Page>(TIMELINE, bearer(bob));
    expect(timeline.status).toBe(200);
    expect(ids(timeline.body)).not.toContain(messageId);
    expect(codeOf(await get(`/v1/messages/${messageId}`, bearer(bob)))).toEqual({
      status: 404,
      code: 'message_not_found',
    });
  }

  it('when an admin removes a member, then the member’s kept channel page, timeline and message stop showing it', async () => {
    const { alice, bob, channelId, message } = await channelWithMessage();
    await keepBobsViews(bob, channelId, message.id);

    const res = await api.request('DELETE', `/v1/channels/${channelId}/members/${bob.uid}`, {
      token: alice.token,
    });
    expect(res.status).toBe(200);

    await expectBobOutside(bob, channelId, message.id);
  });

  it('when a member leaves, then its kept channel page, timeline and message stop showing it', async () => {
    const { bob, channelId, message } = await channelWithMessage();
    await keepBobsViews(bob, channelId, message.id);

    const res = await api.request('DELETE', `/v1/channels/${channelId}/members/${bob.uid}`, {
      token: bob.token,
    });
    expect(res.status).toBe(200);

    await expectBobOutside(bob, channelId, message.id);
  });
});

describe('deletion', () => {
  it('when a reply is deleted, then its kept read is 404 and the kept thread, traversal and tree ids leave it out', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const root = await postMessage(api, alice.token, { content: `root ${word()}`, recipients: [bob.tag] });
    const reply = await postMessage(api, bob.token, {
      content: `reply ${word()}`,
      parent_id: root.id,
      recipients: [alice.tag],
    });
    const views = {
      message: `/v1/messages/${reply.id}`,
      thread: `/v1/messages/${root.id}/thread`,
      traverse: `/v1/messages/traverse-from/${root.id}`,
      treeIds: `/v1/messages/${root.id}/tree-ids`,
    };
    await readCached(views.message, bearer(alice));
    expect(ids((await readCached<Page>(views.thread, bearer(alice))).body)).toEqual([root.id, reply.id]);
    expect(ids((await readCached<Traversal>(views.traverse, bearer(alice))).body)).toEqual([
      root.id,
      reply.id,
    ]);
    expect((await readCached<TreeIds>(views.treeIds, bearer(alice))).body).toEqual({
      root_id: root.id,
      ids: [root.id, reply.id],
    });

    const res = await api.request('DELETE', `/v1/messages/${reply.id}`, { token: bob.token });
    expect(res.status).toBe(200);

    expect(codeOf(await get(views.message, bearer(alice)))).toEqual({
      status: 404,
      code: 'message_not_found',
    });
    const thread = await get<Page>(views.thread, bearer(alice));
    expect({ status: thread.status, ids: ids(thread.body) }).toEqual({ status: 200, ids: [root.id] });
    const traversal = await get<Traversal>(views.traverse, bearer(alice));
    expect({ status: traversal.status, ids: ids(traversal.body) }).toEqual({ status: 200, ids: [root.id] });
    const tree = await get<TreeIds>(views.treeIds, bearer(alice));
    expect({ status: tree.status, body: tree.body }).toEqual({
      status: 200,
      body: { root_id: root.id, ids: [root.id] },
    });
  });
});

describe('content changes', () => {
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
  });

  it('when the author edits the content, then the recipient’s kept message and kept search show the new content', async () => {
    const [before, after] = [word(), word()];
    const message = await postMessage(api, alice.token, {
      content: `draft ${before}`,
      recipients: [bob.tag],
    });
    const path = `/v1/messages/${message.id}`;
    const searchNew = `/v1/messages/search?q=${after}`;
    const searchOld = `/v1/messages/search?q=${before}`;
    expect((await readCached<Message>(path, bearer(bob))).body.content).toBe(`draft ${before}`);
    expect(ids((await readCached<Page>(searchOld, bearer(bob))).body)).toEqual([message.id]);
    expect(ids((await readCached<Page>(searchNew, bearer(bob))).body)).toEqual([]);

    const res = await api.request('PATCH', `/v1/messages/${message.id}/content`, {
      token: alice.token,
      body: { content: `final ${after}` },
    });
    expect(res.status).toBe(200);

    const read = await get<Message>(path, bearer(bob));
    expect({ status: read.status, content: read.body.content }).toEqual({
      status: 200,
      content: `final ${after}`,
    });
    expect(ids((await get<Page>(searchOld, bearer(bob))).body)).toEqual([]);
    expect(ids((await get<Page>(searchNew, bearer(bob))).body)).toEqual([message.id]);
  });

  it('when the tags change, then the kept message shows the new tags', async () => {
    const message = await postMessage(api, alice.token, {
      content: `tagged ${word()}`,
      recipients: [bob.tag],
      tags: ['before'],
    });
    const path = `/v1/messages/${message.id}`;
    expect((await readCached<Message>(path, bearer(bob))).body.tags).toEqual(['before']);

    const res = await api.request('PATCH', `/v1/messages/${message.id}/tags`, {
      token: alice.token,
      body: { tags: ['after'] },
    });
    expect(res.status).toBe(200);

    const read = await get<Message>(path, bearer(bob));
    expect({ status: read.status, tags: read.body.tags }).toEqual({ status: 200, tags: ['after'] });
  });

  it('when a recipient reacts, then the author’s kept message shows the reaction', async () => {
    const message = await postMessage(api, alice.token, {
      content: `react ${word()}`,
      recipients: [bob.tag],
    });
    const path = `/v1/messages/${message.id}`;
    expect((await readCached<Message>(path, bearer(alice))).body.reactions).toEqual([]);

    const res = await api.request('PUT', `/v1/messages/${message.id}/reactions/${encodeURIComponent('👍')}`, {
      token: bob.token,
    });
    expect(res.status).toBe(200);

    const read = await get<Message>(path, bearer(alice));
    expect({ status: read.status, reactions: read.body.reactions }).toEqual({
      status: 200,
      reactions: [{ reaction: '👍', count: 1, me: false }],
    });
  });
});

describe('new posts', () => {
  it('when a new message arrives in the conversation, then the kept timeline, search, conversation and unread counts show it', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const w = word();
    const first = await postMessage(api, alice.token, { content: `hello ${w}`, recipients: [bob.tag] });
    const views = {
      timeline: TIMELINE,
      search: `/v1/messages/search?q=${w}`,
      conversation: `/v1/messages/conversation/${alice.uid}`,
      unread: '/v1/messages/unread',
    };
    expect(ids((await readCached<Page>(views.timeline, bearer(bob))).body)).toContain(first.id);
    expect(ids((await readCached<Page>(views.search, bearer(bob))).body)).toEqual([first.id]);
    expect(ids((await readCached<Page>(views.conversation, bearer(bob))).body)).toEqual([first.id]);
    expect((await readCached<Unread>(views.unread, bearer(bob))).body).toMatchObject({
      total_messages: 1,
      total_threads: 1,
    });

    const second = await postMessage(api, alice.token, {
      content: `again ${w}`,
      parent_id: first.id,
      recipients: [bob.tag],
    });

    const timeline = await get<Page>(views.timeline, bearer(bob));
    expect(ids(timeline.body)).toEqual(expect.arrayContaining([first.id, second.id]));
    expect(ids(timeline.body).indexOf(second.id)).toBeLessThan(ids(timeline.body).indexOf(first.id));
    expect(new Set(ids((await get<Page>(views.search, bearer(bob))).body))).toEqual(
      new Set([first.id, second.id]),
    );
    expect(ids((await get<Page>(views.conversation, bearer(bob))).body)).toEqual([second.id, first.id]);
    expect((await get<Unread>(views.unread, bearer(bob))).body).toMatchObject({
      total_messages: 2,
      total_threads: 1,
      threads: [{ root_id: first.id, unread_count: 2, latest_message_id: second.id }],
    });
  });
});

describe('whose kept answers a post ends', () => {
  it('when two other users talk privately, then a third user’s kept answers stay kept', async () => {
    const [alice, bob, carol] = await threeWriters();
    const mine = await postMessage(api, carol.token, {
      content: `carol's ${word()}`,
      recipients: [alice.tag],
    });
    await readCached(`/v1/messages/${mine.id}`, bearer(carol));
    await readCached(TIMELINE, bearer(carol));

    await postMessage(api, alice.token, { content: `only for bob ${word()}`, recipients: [bob.tag] });

    await expectHit(`/v1/messages/${mine.id}`, bearer(carol));
    await expectHit(TIMELINE, bearer(carol));
  });

  it('when alice starts a thread with bob, then her kept conversation with carol stays kept, and her other kept views show the post', async () => {
    const [alice, bob, carol] = await threeWriters();
    const withCarol = await postMessage(api, carol.token, {
      content: `to alice ${word()}`,
      recipients: [alice.tag],
    });
    const conversations = {
      carol: `/v1/messages/conversation/${carol.uid}`,
      bob: `/v1/messages/conversation/${bob.uid}`,
    };
    expect(ids((await readCached<Page>(conversations.carol, bearer(alice))).body)).toEqual([withCarol.id]);
    expect(ids((await readCached<Page>(conversations.bob, bearer(alice))).body)).toEqual([]);
    await readCached(TIMELINE, bearer(alice));
    // Percent-encoded, the same page under another URL: judged by the uid it names.
    const encoded = `/v1/messages/conversation/%${carol.uid.charCodeAt(0).toString(16)}${carol.uid.slice(1)}`;
    await readCached(encoded, bearer(alice));
    await readCached(`/v1/messages/${withCarol.id}`, bearer(alice));

    const root = await postMessage(api, alice.token, {
      content: `a new thread ${word()}`,
      recipients: [bob.tag],
    });

    expect(ids((await expectHit<Page>(conversations.carol, bearer(alice))).body)).toEqual([withCarol.id]);
    await expectHit(encoded, bearer(alice));
    expect(ids((await get<Page>(conversations.bob, bearer(alice))).body)).toEqual([root.id]);
    expect(ids((await get<Page>(conversations.bob.replace(bob.uid, alice.uid), bearer(bob))).body)).toEqual([
      root.id,
    ]);
    expect(ids((await get<Page>(TIMELINE, bearer(alice))).body)).toContain(root.id);
    // Not a conversation page: forgotten like every other view of a viewer the post names.
    await expectMiss(`/v1/messages/${withCarol.id}`, bearer(alice));
  });

  it('when alice replies to a message of her conversation with carol, addressed to bob only, then the kept conversation with carol shows the reply', async () => {
    const [alice, bob, carol] = await threeWriters();
    const withCarol = await postMessage(api, alice.token, {
      content: `to carol ${word()}`,
      recipients: [carol.tag],
    });
    const page = `/v1/messages/conversation/${carol.uid}`;
    const kept = (await readCached<Page>(page, bearer(alice))).body;
    expect(kept.messages[0]).toMatchObject({ id: withCarol.id, reply_ids: [] });

    const reply = await postMessage(api, alice.token, {
      content: `for bob ${word()}`,
      parent_id: withCarol.id,
      recipients: [bob.tag],
    });

    // An existing message gained a reply edge: no conversation page of the viewers is kept.
    expect((await get<Page>(page, bearer(alice))).body.messages[0]).toMatchObject({
      id: withCarol.id,
      reply_ids: [reply.id],
    });
  });

  it('when alice posts a new thread into a channel, then her kept conversation with a member outside the post’s recipients is forgotten too', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const channel = await createChannel(api, alice.token);
    await addMember(api, alice.token, channel.id, { uid: bob.uid });
    const withCarol = await postMessage(api, carol.token, {
      content: `to alice ${word()}`,
      recipients: [alice.tag],
    });
    const page = `/v1/messages/conversation/${carol.uid}`;
    await readCached(page, bearer(alice));

    await postMessage(api, alice.token, { content: `in the channel ${word()}`, channel_ids: [channel.id] });

    // Channel posts keep the blunt rule: the next read is not answered from the cache.
    expect(ids((await expectMiss<Page>(page, bearer(alice))).body)).toEqual([withCarol.id]);
  });

  it('when a member posts into a channel, then every other member’s kept channel page and timeline show it', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const channel = await createChannel(api, alice.token);
    await addMember(api, alice.token, channel.id, { uid: bob.uid });
    await addMember(api, alice.token, channel.id, { uid: carol.uid });
    const first = await postMessage(api, alice.token, {
      content: `first ${word()}`,
      channel_ids: [channel.id],
    });
    const page = `/v1/channels/${channel.id}/messages`;
    expect(ids((await readCached<Page>(page, bearer(carol))).body)).toEqual([first.id]);
    expect(ids((await readCached<Page>(TIMELINE, bearer(carol))).body)).toContain(first.id);

    const second = await postMessage(api, bob.token, {
      content: `second ${word()}`,
      channel_ids: [channel.id],
    });

    expect(ids((await get<Page>(page, bearer(carol))).body)).toEqual([second.id, first.id]);
    expect(ids((await get<Page>(TIMELINE, bearer(carol))).body)).toContain(second.id);
  });

  it('when someone posts a public message, then a stranger’s kept search finds it', async () => {
    const [alice, stranger] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const w = word();
    const search = `/v1/messages/search?q=${w}`;
    expect(ids((await readCached<Page>(search, bearer(stranger))).body)).toEqual([]);

    const open = await postMessage(api, alice.token, { content: `for everyone ${w}`, public: true });

    expect(ids((await get<Page>(search, bearer(stranger))).body)).toEqual([open.id]);
  });
});

describe('ended credentials', () => {
  async function keptMessage(): Promise<{ user: TestUser; path: string }> {
    const user = await registerWriter(api, { apiAccess: true });
    const message = await postMessage(api, user.token, { content: `mine ${word()}` });
    return { user, path: `/v1/messages/${message.id}` };
  }

  it('when the session logs out, then its token is refused with 401 on the URL it had kept', async () => {
    const { user, path } = await keptMessage();
    await readCached(path, bearer(user));

    expect((await api.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(200);

    expect(codeOf(await get(path, bearer(user)))).toEqual({ status: 401, code: 'invalid_session' });
  });

  it('when an API key is revoked, then the key is refused with 401 on the URL it had kept', async () => {
    const { user, path } = await keptMessage();
    const { key, key_id } = await createKey(api, user.token);
    await readCached(path, { apiKey: key });

    const res = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token });
    expect(res.status).toBe(200);

    expect(codeOf(await get(path, { apiKey: key }))).toEqual({ status: 401, code: 'invalid_api_key' });
  });

  it('when an API key is revoked, then a session minted from it is refused with 401 on the URL it had kept', async () => {
    const { user, path } = await keptMessage();
    const { key, key_id } = await createKey(api, user.token);
    const minted = await api.request<Token>('POST', '/v1/auth/token', { apiKey: key, body: {} });
    expect(minted.status).toBe(200);
    const session = { token: minted.body.access_token };
    await readCached(path, session);

    const res = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token });
    expect(res.status).toBe(200);

    expect(codeOf(await get(path, session))).toEqual({ status: 401, code: 'invalid_session' });
  });

  it('when the password changes, then the old session is refused with 401 on the URL it had kept', async () => {
    const { user, path } = await keptMessage();
    await readCached(path, bearer(user));

    const changed = await api.request<Token>('POST', '/v1/auth/password/change', {
      token: user.token,
      body: { current_password: user.password, new_password: 'another-strong-passphrase-9' },
    });
    expect(changed.status).toBe(200);

    expect(codeOf(await get(path, bearer(user)))).toEqual({ status: 401, code: 'invalid_session' });
    expect((await get(path, { token: changed.body.access_token })).status).toBe(200);
  });
});
