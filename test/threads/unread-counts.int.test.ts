// Unread counts and marking a whole thread read: GET /v1/messages/unread, POST
// /v1/messages/{message_id}/thread/read, and their GraphQL fields unreadCounts and markThreadRead.
// Each test gives the reader a fresh account, so the counts are theirs alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { applySchema } from '../../src/platform/neo4j/schema-setup.js';
import { createLogger } from '../../src/platform/logger.js';
import { postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let alice: TestUser;
let carol: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, carol] = await Promise.all([registerWriter(api), registerWriter(api)]);
});
afterAll(async () => {
  await api.close();
});

interface UnreadThread {
  root_id: string | null;
  unread_count: number;
  latest_message_id: string;
  latest_at: string;
}
interface UnreadCounts {
  total_messages: number;
  total_threads: number;
  threads: UnreadThread[];
  skip: number;
  limit: number;
  has_more: boolean;
}

async function unread(token: string, query = ''): Promise<UnreadCounts> {
  const res = await api.request<UnreadCounts>('GET', `/v1/messages/unread${query}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

function markThread(token: string, id: string) {
  return api.request<{ message_id: string; marked_read: number }>('POST', `/v1/messages/${id}/thread/read`, {
    token,
  });
}

function post(token: string, input: Record<string, unknown>) {
  return postMessage(api, token, input);
}

describe('GET /v1/messages/unread', () => {
  it('when messages addressed to a user arrive in two threads, then the totals count them and the threads come newest first', async () => {
    const bob = await registerWriter(api);
    const first = await post(alice.token, { content: 'first thread', recipients: [bob.tag] });
    const reply = await post(alice.token, { content: 'a reply', parent_id: first.id, recipients: [bob.tag] });
    const second = await post(carol.token, {
      content: 'second thread',
      recipients: [{ user_tag: bob.tag, public: false }],
    });

    const counts = await unread(bob.token);
    expect(counts).toEqual({
      total_messages: 3,
      total_threads: 2,
      threads: [
        { root_id: second.id, unread_count: 1, latest_message_id: second.id, latest_at: second.timestamp },
        { root_id: first.id, unread_count: 2, latest_message_id: reply.id, latest_at: reply.timestamp },
      ],
      skip: 0,
      limit: 15,
      has_more: false,
    });
  });

  it('when threads are paged, then has_more and skip walk them while the totals stay whole', async () => {
    const bob = await registerWriter(api);
    const older = await post(alice.token, { content: 'older', recipients: [bob.tag] });
    const newer = await post(alice.token, { content: 'newer', recipients: [bob.tag] });

    const page1 = await unread(bob.token, '?limit=1');
    expect(page1.threads.map((t) => t.root_id)).toEqual([newer.id]);
    expect(page1).toMatchObject({ total_messages: 2, total_threads: 2, limit: 1, has_more: true });
    const page2 = await unread(bob.token, '?limit=1&skip=1');
    expect(page2.threads.map((t) => t.root_id)).toEqual([older.id]);
    expect(page2).toMatchObject({ total_messages: 2, skip: 1, has_more: false });
  });

  it('when messages are read, unread again, deleted or their recipient removed, then the counts follow', async () => {
    const bob = await registerWriter(api);
    const a = await post(alice.token, { content: 'to be read', recipients: [bob.tag] });
    const b = await post(alice.token, { content: 'to be deleted', recipients: [bob.tag] });
    const c = await post(alice.token, { content: 'to lose bob', recipients: [bob.tag] });
    expect((await unread(bob.token)).total_messages).toBe(3);

    await api.request('POST', `/v1/messages/${a.id}/read`, { token: bob.token, body: { read: true } });
    expect((await unread(bob.token)).total_messages).toBe(2);
    await api.request('POST', `/v1/messages/${a.id}/read`, { token: bob.token, body: { read: false } });
    expect((await unread(bob.token)).total_messages).toBe(3);

    expect((await api.request('DELETE', `/v1/messages/${b.id}`, { token: alice.token })).status).toBe(200);
    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: alice.token,
      body: { message_id: c.id, recipient_uid: bob.uid },
    });
    expect(removed.status).toBe(200);

    const counts = await unread(bob.token);
    expect(counts.total_messages).toBe(1);
    expect(counts.threads.map((t) => t.latest_message_id)).toEqual([a.id]);
  });

  it('when a user is added as a recipient later, then the message counts as unread for them', async () => {
    const bob = await registerWriter(api);
    const m = await post(alice.token, { content: 'bob joins later', recipients: [carol.tag] });
    expect((await unread(bob.token)).total_messages).toBe(0);
    const added = await api.request('POST', '/v1/recipients/add', {
      token: alice.token,
      body: { message_id: m.id, recipients: [{ user_tag: bob.tag }] },
    });
    expect(added.status).toBe(200);
    expect((await unread(bob.token)).threads).toEqual([
      expect.objectContaining({ latest_message_id: m.id, unread_count: 1 }),
    ]);
  });

  it('when a user only sees messages as their author, as public ones or through a channel, then none is unread', async () => {
    const bob = await registerWriter(api);
    await post(bob.token, { content: 'my own, to alice', recipients: [alice.tag] });
    await post(alice.token, { content: 'public, to nobody', public: true });
    expect(await unread(bob.token)).toMatchObject({ total_messages: 0, total_threads: 0, threads: [] });
  });

  it('when the thread root is hidden from the reader, then its entry names the root the message shows (its own id under a hidden parent) and still counts the thread', async () => {
    const bob = await registerWriter(api);
    const root = await post(alice.token, { content: 'between alice and carol', recipients: [carol.tag] });
    const reply = await post(carol.token, {
      content: 'bob, look',
      parent_id: root.id,
      recipients: [bob.tag],
    });
    const counts = await unread(bob.token);
    expect(counts.threads).toEqual([
      { root_id: reply.id, unread_count: 1, latest_message_id: reply.id, latest_at: reply.timestamp },
    ]);
  });

  it('when receivers edges were made before their UNREAD twins existed, then applying the schema makes each once', async () => {
    const bob = await registerWriter(api);
    const m = await post(alice.token, { content: 'from an older version', recipients: [bob.tag] });
    await api.ctx.db.runText('MATCH (:User {uid: $uid})-[u:UNREAD]->(:Message {id: $id}) DELETE u', {
      uid: bob.uid,
      id: m.id,
    });
    expect((await unread(bob.token)).total_messages).toBe(0);

    // Applied twice (as two instances starting at once might), it still makes one.
    for (let run = 0; run < 2; run++) {
      await api.ctx.db.runText(
        'MATCH (s:SkeinSchema {id: "schema"}) SET s.applied = [v IN s.applied WHERE v <> 19]',
      );
      await applySchema(api.ctx.db, createLogger('warn'));
    }
    expect((await unread(bob.token)).total_messages).toBe(1);
  });

  it('when the query is out of range, then it answers 422', async () => {
    const res = await api.request('GET', '/v1/messages/unread?limit=0', { token: alice.token });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error' });
  });

  it('when no credential is sent, then it answers 401', async () => {
    expect((await api.request('GET', '/v1/messages/unread')).status).toBe(401);
  });
});

describe('POST /v1/messages/{message_id}/thread/read', () => {
  it('when a recipient marks a thread read, then every unread message addressed to them there is read, and nothing else', async () => {
    const bob = await registerWriter(api);
    const root = await post(alice.token, { content: 'root', recipients: [bob.tag] });
    const mid = await post(alice.token, {
      content: 'mid',
      parent_id: root.id,
      recipients: [bob.tag, carol.tag],
    });
    const leaf = await post(carol.token, {
      content: 'leaf',
      parent_id: mid.id,
      recipients: [{ user_tag: bob.tag, public: false }],
    });
    const other = await post(alice.token, { content: 'another thread', recipients: [bob.tag] });
    await api.request('POST', `/v1/messages/${root.id}/read`, { token: bob.token, body: { read: true } });
    const firstRead = (
      await api.request<{ read_at: string }>('POST', `/v1/messages/${root.id}/read`, {
        token: bob.token,
        body: { read: true },
      })
    ).body.read_at;

    const res = await markThread(bob.token, leaf.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_id: leaf.id, marked_read: 2 });

    const counts = await unread(bob.token);
    expect(counts).toMatchObject({ total_messages: 1, total_threads: 1 });
    expect(counts.threads[0]?.latest_message_id).toBe(other.id);
    // Carol's own receivers edge on mid is hers: still unread.
    expect((await unread(carol.token)).threads.map((t) => t.latest_message_id)).toContain(mid.id);
    // The root keeps the time it was first read.
    const seen = await api.request<{ recipients: { uid: string; read_at: string | null }[] }>(
      'GET',
      `/v1/messages/${root.id}`,
      { token: bob.token },
    );
    expect(seen.body.recipients.find((r) => r.uid === bob.uid)?.read_at).toBe(firstRead);

    expect((await markThread(bob.token, root.id)).body).toEqual({ message_id: root.id, marked_read: 0 });
  });

  it('when the caller may not see the message, then it answers the 404 of a missing message and marks nothing', async () => {
    const bob = await registerWriter(api);
    const stranger = await registerWriter(api);
    const m = await post(alice.token, { content: 'not for strangers', recipients: [bob.tag] });
    const hidden = await markThread(stranger.token, m.id);
    const missing = await markThread(stranger.token, 'ffffffff');
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
    expect((await unread(bob.token)).total_messages).toBe(1);
  });

  it('when the caller lacks messages.write, then it answers 403', async () => {
    const reader = await registerUser(api);
    const m = await post(alice.token, { content: 'to a reader', recipients: [reader.tag] });
    expect((await markThread(reader.token, m.id)).status).toBe(403);
    expect((await unread(reader.token)).total_messages).toBe(1);
  });

  it('when the id is malformed, then it answers 422', async () => {
    expect((await markThread(alice.token, 'not-an-id')).status).toBe(422);
  });
});

describe('GraphQL unreadCounts and markThreadRead', () => {
  it('when asked through GraphQL, then the answers equal the REST ones', async () => {
    const bob = await registerWriter(api);
    const m = await post(alice.token, { content: 'over graphql', recipients: [bob.tag] });
    const rest = await unread(bob.token);
    const counts = await api.graphql<{ unreadCounts: UnreadCounts }>(
      `{ unreadCounts { total_messages total_threads skip limit has_more
           threads { root_id unread_count latest_message_id latest_at } } }`,
      {},
      { token: bob.token },
    );
    expect(counts.body.data?.unreadCounts).toEqual(rest);

    const marked = await api.graphql<{ markThreadRead: { message_id: string; marked_read: number } }>(
      'mutation ($id: String!) { markThreadRead(message_id: $id) { message_id marked_read } }',
      { id: m.id },
      { token: bob.token },
    );
    expect(marked.body.data?.markThreadRead).toEqual({ message_id: m.id, marked_read: 1 });
    expect((await unread(bob.token)).total_messages).toBe(0);
  });
});
