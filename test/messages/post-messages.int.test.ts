// POST /v1/messages and GET /v1/messages/{message_id}.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { channelWith, registerCreator } from '../channels/channel-helpers.js';
import { uploadOk } from '../files/file-helpers.js';
import { postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Message {
  id: string;
  content: string;
  parent_id: string | null;
  root_id: string | null;
  tags: string[];
  subject: string | null;
  public: boolean;
  timestamp: string;
  author: { uid: string; user_tag: string };
  recipients: {
    uid: string;
    user_tag: string;
    public: boolean;
    added_by: string | null;
    read_at: string | null;
  }[];
  reply_ids: string[];
}
type Result =
  | { index: number; ok: true; message: Message }
  | { index: number; ok: false; error: Record<string, unknown> };

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob, carol] = await Promise.all([registerWriter(api), registerUser(api), registerUser(api)]);
});
afterAll(async () => {
  await api.close();
});

const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  api.request<Result[]>('POST', '/v1/messages', { token, body, headers });

function messageOf(result: Result | undefined): Message {
  if (!result?.ok) throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result.message;
}

describe('POST /v1/messages', () => {
  it('when the body is one input, then one result with the MessageOutput', async () => {
    const res = await post(alice.token, { content: 'hello', tags: ['News', 'news', 'a:b/c'], subject: 'Hi' });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const m = messageOf(res.body[0]);
    expect(m).toMatchObject({
      content: 'hello',
      subject: 'Hi',
      public: false,
      parent_id: null,
      tags: ['news', 'a:b/c'],
      author: { uid: alice.uid, user_tag: alice.tag },
      recipients: [],
      reply_ids: [],
      stitch_parent_ids: [],
      stitch_child_ids: [],
      channel_ids: [],
      attachments: [],
      reply_order: null,
      default_outgoing: null,
      import_info: null,
      is_saved: false,
      reactions: [],
      edited_at: null,
    });
    expect(m.id).toMatch(/^[0-9a-f]{8}$/);
    expect(m.root_id).toBe(m.id);
    expect(m.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('when the body is {messages: [...]} or a raw array, then items are chained as replies in order', async () => {
    for (const body of [
      { messages: [{ content: 'a' }, { content: 'b' }, { content: 'c' }] },
      [{ content: 'a' }, { content: 'b' }, { content: 'c' }],
    ]) {
      const res = await post(alice.token, body);
      expect(res.status).toBe(200);
      const [a, b, c] = res.body.map(messageOf);
      expect(a!.parent_id).toBeNull();
      expect(b!.parent_id).toBe(a!.id);
      expect(c!.parent_id).toBe(b!.id);
      expect(new Set([a!.root_id, b!.root_id, c!.root_id])).toEqual(new Set([a!.id]));
      expect(a!.reply_ids).toEqual([b!.id]);
    }
  });

  it('when an item fails, then the others succeed and the next one chains to the previous successful one', async () => {
    const res = await post(alice.token, [
      { content: 'first' },
      { content: 'bad', recipients: ['no-such-user-zz9'] },
      { content: '' },
      { content: 'last' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.map((r) => r.ok)).toEqual([true, false, false, true]);
    expect(res.body[1]).toEqual({
      index: 1,
      ok: false,
      error: { status: 404, code: 'user_not_found', detail: expect.any(String) },
    });
    expect(res.body[2]).toMatchObject({
      index: 2,
      ok: false,
      error: { status: 422, code: 'validation_error' },
    });
    expect(messageOf(res.body[3]).parent_id).toBe(messageOf(res.body[0]).id);
    // The failed item left nothing behind: the first message has exactly one reply.
    const first = await api.request<Message>('GET', `/v1/messages/${messageOf(res.body[0]).id}`, {
      token: alice.token,
    });
    expect(first.body.reply_ids).toEqual([messageOf(res.body[3]).id]);
  });

  it('when the first item names a parent, then the chain hangs below it in its thread', async () => {
    const root = await postMessage(api, alice.token, { content: 'root' });
    const res = await post(alice.token, [{ content: 'r1', parent_id: root.id }, { content: 'r2' }]);
    const [r1, r2] = res.body.map(messageOf);
    expect(r1!.parent_id).toBe(root.id);
    expect(r2!.parent_id).toBe(r1!.id);
    expect(r2!.root_id).toBe(root.id);
  });

  it('when the parent is missing or invisible, then that item fails with the same 404', async () => {
    const hidden = await postMessage(api, (await registerWriter(api)).token, { content: 'private' });
    const res = await post(alice.token, [{ content: 'x', parent_id: hidden.id }]);
    const missing = await post(alice.token, [{ content: 'x', parent_id: '00000000' }]);
    expect(res.body[0]).toEqual({
      index: 0,
      ok: false,
      error: { status: 404, code: 'message_not_found', detail: 'Message not found.' },
    });
    expect(missing.body[0]).toEqual(res.body[0]);
  });

  it('when recipients are given as tag, @TAG, uid: and objects, then each becomes one receivers edge', async () => {
    const dave = await registerUser(api);
    const res = await post(alice.token, {
      content: 'to many',
      recipients: [
        bob.tag,
        `@${carol.tag.toUpperCase()}`,
        `uid:${dave.uid}`,
        { user_tag: bob.tag, public: false },
        { uid: carol.uid },
      ],
    });
    const m = messageOf(res.body[0]);
    expect(m.recipients.map((r) => r.uid).sort()).toEqual([bob.uid, carol.uid, dave.uid].sort());
    for (const r of m.recipients)
      expect(r).toMatchObject({ public: true, added_by: alice.uid, read_at: null });
    const rows = await api.ctx.db.runText(
      'MATCH (:Message {id: $id})-[r:RECEIVED_BY]->() RETURN count(r) AS n',
      { id: m.id },
    );
    expect(rows[0]!.n).toBe(3);
  });

  it('when a recipient is BCC, then only the author and that recipient see the entry, and both see the message', async () => {
    const m = messageOf(
      (
        await post(alice.token, {
          content: 'bcc',
          recipients: [bob.tag, { user_tag: carol.tag, public: false }],
        })
      ).body[0],
    );
    const asAlice = await api.request<Message>('GET', `/v1/messages/${m.id}`, { token: alice.token });
    const asBob = await api.request<Message>('GET', `/v1/messages/${m.id}`, { token: bob.token });
    const asCarol = await api.request<Message>('GET', `/v1/messages/${m.id}`, { token: carol.token });
    expect(asAlice.body.recipients.map((r) => r.uid).sort()).toEqual([bob.uid, carol.uid].sort());
    expect(asBob.body.recipients.map((r) => r.uid)).toEqual([bob.uid]);
    expect(asCarol.body.recipients.map((r) => r.uid).sort()).toEqual([bob.uid, carol.uid].sort());
  });

  it('when a file id is not one of the caller uploaded, then the item fails with 404 file_not_found', async () => {
    const res = await post(alice.token, { content: 'with file', files: [{ file_id: 'abcdef12' }] });
    expect(res.body[0]).toMatchObject({ ok: false, error: { status: 404, code: 'file_not_found' } });
  });

  it('when a channel does not exist, then the item fails with 404 channel_not_found', async () => {
    const res = await post(alice.token, { content: 'to channel', channel_ids: ['abcdef12'] });
    expect(res.body[0]).toMatchObject({ ok: false, error: { status: 404, code: 'channel_not_found' } });
  });

  it('when an item is invalid (subject over 72, bad tag, unknown field), then 422 for that item', async () => {
    const res = await post(alice.token, [
      { content: 'a', subject: 'x'.repeat(73) },
      { content: 'b', tags: ['has space'] },
      { content: 'c', colour: 'red' },
    ]);
    for (const result of res.body)
      expect(result).toMatchObject({ ok: false, error: { status: 422, code: 'validation_error' } });
  });

  it('when the body is none of the three forms, then 400', async () => {
    // A bare JSON string, number or null is valid JSON, so it is read, and is none of the forms either.
    for (const body of [{ text: 'no content' }, [], { messages: [] }, 'just a string', 42, null]) {
      const res = await post(alice.token, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'bad_request' });
    }
  });

  it('when there are more than 100 items, then 400 and nothing is created', async () => {
    const res = await post(
      alice.token,
      Array.from({ length: 101 }, (_, i) => ({ content: `m${i}` })),
    );
    expect(res.status).toBe(400);
  });

  it('when the caller lacks messages.write, then 403 and when unauthenticated, then 401', async () => {
    expect((await post(bob.token, { content: 'x' })).status).toBe(403);
    expect((await api.request('POST', '/v1/messages', { body: { content: 'x' } })).status).toBe(401);
  });

  it('when a post is answered, then each message shows exactly what a GET right after shows the poster', async () => {
    // The answer is read by the write statement itself (write-post.cypher), not by hydrate.cypher
    // after the commit: every field must still come out as the reads show it.
    const [poster, other, third] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const channel = await channelWith(api, poster, [third]);
    // A parent the poster sees (public) in a thread whose root it does not (other's note to third).
    const hidden = await postMessage(api, other.token, { content: 'private', recipients: [third.tag] });
    const parent = await postMessage(api, third.token, {
      content: 'public reply',
      parent_id: hidden.id,
      public: true,
      recipients: [{ user_tag: other.tag, public: true }],
    });
    const file = await uploadOk(api, poster.token, 'attached words', { filename: 'words.txt' });
    const res = await post(poster.token, [
      {
        content: `first, for @${third.tag}`,
        subject: 'Everything',
        tags: ['Alpha', 'beta'],
        parent_id: parent.id,
        recipients: [other.tag, { user_tag: third.tag, public: false }],
        channel_ids: [channel.id],
        files: [{ file_id: file.file_id }],
      },
      { content: 'second, to the parent audience', audience: 'parent' },
      { content: 'third, plain' },
    ]);
    expect(res.status).toBe(200);
    const answered = res.body.map(messageOf);
    expect(answered).toHaveLength(3);
    // The thread root is hidden from the poster: the root shown is the topmost ancestor it sees.
    expect(answered[0]).toMatchObject({
      parent_id: parent.id,
      root_id: parent.id,
      reply_ids: [answered[1]!.id],
    });
    expect(answered[1]).toMatchObject({ parent_id: answered[0]!.id, root_id: parent.id });
    for (const message of answered) {
      const read = await api.request<Message>('GET', `/v1/messages/${message.id}`, { token: poster.token });
      expect(read.status).toBe(200);
      expect(message).toEqual(read.body);
    }
  });

  it('when the same Idempotency-Key is sent twice, then the first answer comes back and nothing new is created', async () => {
    const key = `key-${Date.now()}-${Math.random()}`;
    const first = await post(alice.token, [{ content: 'once' }, { content: 'twice' }], {
      'Idempotency-Key': key,
    });
    const second = await post(alice.token, [{ content: 'once' }, { content: 'twice' }], {
      'Idempotency-Key': key,
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const rows = await api.ctx.db.runText(
      'MATCH (m:Message {author_uid: $uid}) WHERE m.content IN ["once", "twice"] RETURN count(m) AS n',
      {
        uid: alice.uid,
      },
    );
    expect(rows[0]!.n).toBe(2);
    // Another caller's identical key is its own.
    const other = await registerWriter(api);
    const third = await post(other.token, [{ content: 'once' }], { 'Idempotency-Key': key });
    expect(messageOf(third.body[0]).author.uid).toBe(other.uid);
  });

  it('when concurrent requests share an Idempotency-Key, then exactly one set of messages exists', async () => {
    const writer = await registerWriter(api);
    const key = `race-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post(writer.token, { content: 'raced' }, { 'Idempotency-Key': key })),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const ids = new Set(answers.map((a) => messageOf(a.body[0]).id));
    expect(ids.size).toBe(1);
    const rows = await api.ctx.db.runText('MATCH (m:Message {author_uid: $uid}) RETURN count(m) AS n', {
      uid: writer.uid,
    });
    expect(rows[0]!.n).toBe(1);
  });

  it('when the Idempotency-Key is malformed, then 400', async () => {
    const res = await post(alice.token, { content: 'x' }, { 'Idempotency-Key': 'x'.repeat(300) });
    expect(res.status).toBe(400);
  });
});

describe('GET /v1/messages/{message_id}', () => {
  it('when the caller may not see it, then the same 404 body as a missing id', async () => {
    const m = await postMessage(api, alice.token, { content: 'secret' });
    const stranger = await registerUser(api);
    const invisible = await api.request('GET', `/v1/messages/${m.id}`, { token: stranger.token });
    const missing = await api.request('GET', '/v1/messages/0000ffff', { token: stranger.token });
    expect(invisible.status).toBe(404);
    expect(JSON.stringify(invisible.body)).toBe(JSON.stringify(missing.body));
  });

  it('when the message is public, then anyone signed in reads it', async () => {
    const m = await postMessage(api, alice.token, { content: 'open', public: true });
    const stranger = await registerUser(api);
    const res = await api.request<Message>('GET', `/v1/messages/${m.id}`, { token: stranger.token });
    expect(res.status).toBe(200);
    expect(res.body.public).toBe(true);
  });

  it('when a reply is invisible to a recipient of the root, then its id is not in reply_ids, and a message under it is a root to that recipient', async () => {
    const root = await postMessage(api, alice.token, { content: 'root', recipients: [bob.tag] });
    const hiddenReply = await postMessage(api, alice.token, { content: 'aside', parent_id: root.id });
    const visibleReply = await postMessage(api, alice.token, {
      content: 'to bob',
      parent_id: hiddenReply.id,
      recipients: [bob.tag],
    });
    const asBob = await api.request<Message>('GET', `/v1/messages/${root.id}`, { token: bob.token });
    expect(asBob.body.reply_ids).toEqual([]);
    const leaf = await api.request<Message>('GET', `/v1/messages/${visibleReply.id}`, { token: bob.token });
    // A root to bob, exactly as a real root shows (security review 2026-12-02, #4): naming the root
    // beyond the hidden parent would tell bob that a parent exists.
    expect(leaf.body.parent_id).toBeNull();
    expect(leaf.body.root_id).toBe(visibleReply.id);
  });

  it('when the id is malformed, then 422', async () => {
    expect((await api.request('GET', '/v1/messages/XYZ', { token: alice.token })).status).toBe(422);
  });

  it('when unauthenticated, then 401', async () => {
    expect((await api.request('GET', '/v1/messages/0000ffff')).status).toBe(401);
  });
});

describe('GraphQL postMessages and message', () => {
  it('when posting a chain through GraphQL, then the graph fields resolve as the caller sees them', async () => {
    const res = await api.graphql<{ postMessages: { ok: boolean; message: { id: string } }[] }>(
      'mutation ($m: [MessageInput!]!) { postMessages(messages: $m) { ok message { id } } }',
      { m: [{ content: 'g1', recipients: [{ user_tag: bob.tag }] }, { content: 'g2' }] },
      { token: alice.token },
    );
    expect(res.body.errors).toBeUndefined();
    const [g1, g2] = res.body.data!.postMessages.map((r) => r.message.id);
    const q = await api.graphql<{
      message: {
        author: { uid: string };
        replies: { id: string; parent: { id: string } }[];
        recipients: { user: { uid: string } }[];
      };
    }>(
      'query ($id: String!) { message(message_id: $id) { author { uid } replies { id parent { id } } recipients { user { uid } } } }',
      { id: g1 },
      { token: alice.token },
    );
    expect(q.body.data!.message).toEqual({
      author: { uid: alice.uid },
      replies: [{ id: g2, parent: { id: g1 } }],
      recipients: [{ user: { uid: bob.uid } }],
    });
    const asBob = await api.graphql<{ message: { replies: unknown[] } }>(
      'query ($id: String!) { message(message_id: $id) { replies { id } } }',
      { id: g1 },
      { token: bob.token },
    );
    expect(asBob.body.data!.message.replies).toEqual([]);
  });

  it('when the message is invisible, then the GraphQL error carries 404 message_not_found', async () => {
    const m = await postMessage(api, alice.token, { content: 'hidden' });
    const res = await api.graphql(
      'query ($id: String!) { message(message_id: $id) { id } }',
      { id: m.id },
      { token: carol.token },
    );
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'message_not_found', status: 404 });
  });
});
