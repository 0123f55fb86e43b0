// A message its author addresses to themselves is never unread for the author (behaviour checks of
// 2026-11-28): GET /v1/messages/unread, GET /v1/messages/inbox?unread_only=true (with and without
// channel_id) and GraphQL unreadCounts leave it out, as the unread operation's description says of
// one's own messages, while the other recipients still have it unread. Each test gives the author a
// fresh account, so the counts are theirs alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, createChannel, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let bob: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  bob = await registerWriter(api);
});
afterAll(async () => {
  await api.close();
});

interface UnreadCounts {
  total_messages: number;
  total_threads: number;
  threads: { root_id: string | null; unread_count: number; latest_message_id: string }[];
}

async function unread(user: TestUser): Promise<UnreadCounts> {
  const res = await api.request<UnreadCounts>('GET', '/v1/messages/unread', { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}

async function inboxIds(user: TestUser, query: string): Promise<string[]> {
  const res = await api.request<{ messages: { id: string }[] }>('GET', `/v1/messages/inbox?${query}`, {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.messages.map((message) => message.id);
}

const NOTHING_UNREAD = { total_messages: 0, total_threads: 0, threads: [] };

describe('a message addressed by its author to themselves', () => {
  it('when alice writes to herself, then her unread counts and unread inbox stay empty, and her inbox still holds it', async () => {
    const alice = await registerWriter(api);
    const note = await postMessage(api, alice.token, { content: 'note to self', recipients: [alice.tag] });
    expect(await unread(alice)).toMatchObject(NOTHING_UNREAD);
    expect(await inboxIds(alice, 'unread_only=true')).toEqual([]);
    // The inbox rule itself is unchanged: a receivers edge of hers puts the thread there.
    expect(await inboxIds(alice, 'unread_only=false')).toEqual([note.id]);
  });

  it('when alice writes to herself and bob, then bob has it unread and alice does not', async () => {
    const alice = await registerWriter(api);
    const message = await postMessage(api, alice.token, {
      content: 'to both of us',
      recipients: [alice.tag, bob.tag],
    });
    expect(await unread(alice)).toMatchObject(NOTHING_UNREAD);
    expect(await inboxIds(alice, 'unread_only=true')).toEqual([]);
    const bobs = await unread(bob);
    expect(bobs.threads.map((thread) => thread.latest_message_id)).toContain(message.id);
    expect(await inboxIds(bob, 'unread_only=true')).toContain(message.id);
  });

  it('when alice marks her own note unread, then it is still not unread for her', async () => {
    const alice = await registerWriter(api);
    const note = await postMessage(api, alice.token, { content: 'still mine', recipients: [alice.tag] });
    const marked = await api.request('POST', `/v1/messages/${note.id}/read`, {
      token: alice.token,
      body: { read: false },
    });
    expect(marked.status).toBe(200);
    expect(await unread(alice)).toMatchObject(NOTHING_UNREAD);
    expect(await inboxIds(alice, 'unread_only=true')).toEqual([]);
  });

  it('when bob answers alice in the thread of her message to both, then only bob’s answer is unread for her', async () => {
    const alice = await registerWriter(api);
    const note = await postMessage(api, alice.token, {
      content: 'a thread of mine',
      recipients: [alice.tag, bob.tag],
    });
    const answer = await postMessage(api, bob.token, {
      content: 'an answer',
      parent_id: note.id,
      recipients: [alice.tag],
    });
    expect(await unread(alice)).toMatchObject({
      total_messages: 1,
      total_threads: 1,
      threads: [{ root_id: note.id, unread_count: 1, latest_message_id: answer.id }],
    });
    expect(await inboxIds(alice, 'unread_only=true')).toEqual([answer.id]);
  });

  it('when alice writes to herself in a channel, then the channel’s unread inbox leaves it out', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token);
    await addMember(api, alice.token, channel.id, { user_tag: bob.tag });
    const note = await postMessage(api, alice.token, {
      content: 'channel note to self',
      recipients: [alice.tag],
      channel_ids: [channel.id],
    });
    const inChannel = `channel_id=${channel.id}`;
    expect(await inboxIds(alice, `${inChannel}&unread_only=true`)).toEqual([]);
    expect(await inboxIds(alice, `${inChannel}&unread_only=false`)).toEqual([note.id]);
    const toBob = await postMessage(api, alice.token, {
      content: 'for bob, in the channel',
      recipients: [alice.tag, bob.tag],
      channel_ids: [channel.id],
    });
    expect(await inboxIds(bob, `${inChannel}&unread_only=true`)).toEqual([toBob.id]);
    expect(await inboxIds(alice, `${inChannel}&unread_only=true`)).toEqual([]);
  });

  it('when asked through GraphQL, then unreadCounts leaves her note out too', async () => {
    const alice = await registerWriter(api);
    await postMessage(api, alice.token, { content: 'graphql note to self', recipients: [alice.tag] });
    const res = await api.graphql<{ unreadCounts: { total_messages: number; total_threads: number } }>(
      '{ unreadCounts { total_messages total_threads } }',
      {},
      { token: alice.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.unreadCounts).toEqual({ total_messages: 0, total_threads: 0 });
  });
});
