// Messages and channels over REST: GET /v1/channels/{channel_id}/messages,
// PATCH /v1/messages/{message_id}/channels, and visibility through channel membership.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  addMember,
  channelWith,
  createChannel,
  expectError,
  expectValidation,
  registerCreator,
} from './channel-helpers.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface Message {
  id: string;
  content: string;
  channel_ids: string[];
}

interface Page {
  messages: Message[];
  skip: number;
  limit: number;
  has_more: boolean;
}

const MISSING = '00000000';

const get = <T>(token: string | undefined, path: string) => api.request<T>('GET', path, { token });
const setChannels = (token: string | undefined, messageId: string, body: unknown) =>
  api.request<{ message_id: string; channel_ids: string[] }>('PATCH', `/v1/messages/${messageId}/channels`, {
    token,
    body,
  });
const channelIdsOf = async (token: string, messageId: string) =>
  (await get<Message>(token, `/v1/messages/${messageId}`)).body.channel_ids;
const sortedIds = (...ids: string[]) => [...ids].sort();

describe('GET /v1/channels/{channel_id}/messages', () => {
  let alice: TestUser;
  let bob: TestUser;
  let channelId: string;
  let posted: { id: string }[];
  beforeAll(async () => {
    [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    channelId = (await channelWith(api, alice, [bob])).id;
    posted = [];
    for (let i = 0; i < 4; i++) {
      const author = i % 2 === 0 ? alice : bob;
      posted.push(await postMessage(api, author.token, { content: `m${i}`, channel_ids: [channelId] }));
    }
    // Not in the channel: never listed.
    await postMessage(api, alice.token, { content: 'elsewhere' });
  });

  it('when a member lists them, then the included messages newest first, as MessageOutputs', async () => {
    const res = await get<Page>(bob.token, `/v1/channels/${channelId}/messages`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ skip: 0, limit: 15, has_more: false });
    expect(res.body.messages.map((m) => m.content)).toEqual(['m3', 'm2', 'm1', 'm0']);
    expect(res.body.messages[0]).toMatchObject({ id: posted[3]!.id, channel_ids: [channelId] });
  });

  it('when paging with skip and limit, then has_more tells whether more follow', async () => {
    const first = await get<Page>(bob.token, `/v1/channels/${channelId}/messages?limit=3`);
    expect(first.body.messages.map((m) => m.content)).toEqual(['m3', 'm2', 'm1']);
    expect(first.body).toMatchObject({ skip: 0, limit: 3, has_more: true });
    const second = await get<Page>(bob.token, `/v1/channels/${channelId}/messages?skip=3&limit=3`);
    expect(second.body.messages.map((m) => m.content)).toEqual(['m0']);
    expect(second.body).toMatchObject({ skip: 3, limit: 3, has_more: false });
    const exact = await get<Page>(bob.token, `/v1/channels/${channelId}/messages?limit=4`);
    expect(exact.body.has_more).toBe(false);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['skip=-1', 'skip'],
    ['limit=abc', 'limit'],
  ])('when the query is %s, then 422', async (query, field) => {
    expectValidation(await get(bob.token, `/v1/channels/${channelId}/messages?${query}`), ['query', field]);
  });

  it('when a non-member lists them, then 403 not_channel_member', async () => {
    const stranger = await registerUser(api);
    expectError(await get(stranger.token, `/v1/channels/${channelId}/messages`), 403, 'not_channel_member');
  });

  it('when the channel does not exist, then 404; without credentials, 401', async () => {
    expectError(await get(bob.token, `/v1/channels/${MISSING}/messages`), 404, 'channel_not_found');
    expectError(await get(undefined, `/v1/channels/${channelId}/messages`), 401, 'not_authenticated');
  });
});

describe('PATCH /v1/messages/{message_id}/channels', () => {
  it('when the author sets channels, then the message is in exactly those, and members see it there', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const one = await channelWith(api, alice, [bob]);
    const two = await createChannel(api, alice.token);
    const message = await postMessage(api, alice.token, { content: 'to file' });

    const res = await setChannels(alice.token, message.id, { channel_ids: [two.id, one.id, two.id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_id: message.id, channel_ids: sortedIds(one.id, two.id) });
    expect(await channelIdsOf(alice.token, message.id)).toEqual(sortedIds(one.id, two.id));

    const listed = await get<Page>(bob.token, `/v1/channels/${one.id}/messages`);
    expect(listed.body.messages.map((m) => m.id)).toEqual([message.id]);
    // Bob sees only the channel he is in.
    expect(await channelIdsOf(bob.token, message.id)).toEqual([one.id]);
  });

  it('when the list changes, then it replaces the earlier one; an empty list removes it from all', async () => {
    const alice = await registerCreator(api);
    const [one, two] = [await createChannel(api, alice.token), await createChannel(api, alice.token)];
    const message = await postMessage(api, alice.token, { content: 'moving', channel_ids: [one.id] });

    const moved = await setChannels(alice.token, message.id, { channel_ids: [two.id] });
    expect(moved.body.channel_ids).toEqual([two.id]);
    expect((await get<Page>(alice.token, `/v1/channels/${one.id}/messages`)).body.messages).toEqual([]);

    const cleared = await setChannels(alice.token, message.id, { channel_ids: [] });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ message_id: message.id, channel_ids: [] });
    expect(await channelIdsOf(alice.token, message.id)).toEqual([]);
  });

  it('when the message is also in a channel the caller is not in, then that inclusion stays', async () => {
    const [alice, bob, dave] = await Promise.all([
      registerCreator(api),
      registerCreator(api),
      registerUser(api),
    ]);
    const alices = await createChannel(api, alice.token);
    const bobs = await channelWith(api, bob, [dave]);
    // Bob can see the message as a CC recipient, so he may file it in his own channel.
    const message = await postMessage(api, alice.token, {
      content: 'shared',
      recipients: [bob.tag],
      channel_ids: [alices.id],
    });
    expect((await setChannels(bob.token, message.id, { channel_ids: [bobs.id] })).body.channel_ids).toEqual([
      bobs.id,
    ]);
    expect(await channelIdsOf(dave.token, message.id)).toEqual([bobs.id]);

    const res = await setChannels(alice.token, message.id, { channel_ids: [] });
    expect(res.body.channel_ids).toEqual([]);
    // Alice could not detach it from Bob's channel: Dave still sees it there.
    expect(await channelIdsOf(dave.token, message.id)).toEqual([bobs.id]);
    const listed = await get<Page>(dave.token, `/v1/channels/${bobs.id}/messages`);
    expect(listed.body.messages.map((m) => m.id)).toEqual([message.id]);
  });

  it('when the caller is not a member of a target channel, then 403 not_channel_member and nothing changes', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerCreator(api)]);
    const mine = await createChannel(api, alice.token);
    const theirs = await createChannel(api, bob.token);
    const message = await postMessage(api, alice.token, { content: 'x', channel_ids: [mine.id] });
    expectError(
      await setChannels(alice.token, message.id, { channel_ids: [theirs.id] }),
      403,
      'not_channel_member',
    );
    expect(await channelIdsOf(alice.token, message.id)).toEqual([mine.id]);
    expect((await get<Page>(bob.token, `/v1/channels/${theirs.id}/messages`)).body.messages).toEqual([]);
  });

  it('when a target channel does not exist, then 404 channel_not_found and nothing changes', async () => {
    const alice = await registerCreator(api);
    const [one, two] = [await createChannel(api, alice.token), await createChannel(api, alice.token)];
    const message = await postMessage(api, alice.token, { content: 'x', channel_ids: [one.id] });
    expectError(
      await setChannels(alice.token, message.id, { channel_ids: [two.id, MISSING] }),
      404,
      'channel_not_found',
    );
    expect(await channelIdsOf(alice.token, message.id)).toEqual([one.id]);
  });

  it('when the caller cannot see the message, then the same 404 as a missing one', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerCreator(api)]);
    const bobs = await createChannel(api, bob.token);
    const hidden = await postMessage(api, alice.token, { content: 'private' });
    const invisible = await setChannels(bob.token, hidden.id, { channel_ids: [bobs.id] });
    const missing = await setChannels(bob.token, MISSING, { channel_ids: [bobs.id] });
    expectError(invisible, 404, 'message_not_found');
    expect(invisible.body).toEqual(missing.body);
    expect(await channelIdsOf(alice.token, hidden.id)).toEqual([]);
  });

  it('when the caller lacks messages.write, then 403 insufficient_scope', async () => {
    const [alice, reader] = await Promise.all([registerCreator(api), registerUser(api)]);
    const channel = await channelWith(api, alice, [reader]);
    const message = await postMessage(api, alice.token, { content: 'x', channel_ids: [channel.id] });
    expectError(await setChannels(reader.token, message.id, { channel_ids: [] }), 403, 'insufficient_scope');
    expect(await channelIdsOf(alice.token, message.id)).toEqual([channel.id]);
  });

  it('when the body is malformed, then 422; without credentials, 401', async () => {
    const alice = await registerCreator(api);
    const message = await postMessage(api, alice.token, { content: 'x' });
    expectValidation(await setChannels(alice.token, message.id, {}), ['body', 'channel_ids']);
    expectValidation(await setChannels(alice.token, message.id, { channel_ids: 'abc' }), [
      'body',
      'channel_ids',
    ]);
    expectValidation(await setChannels(alice.token, message.id, { channel_ids: ['BAD'] }), [
      'body',
      'channel_ids',
      0,
    ]);
    expectValidation(await setChannels(alice.token, 'nope', { channel_ids: [] }), ['path', 'message_id']);
    expectError(await setChannels(undefined, message.id, { channel_ids: [] }), 401, 'not_authenticated');
  });
});

describe('visibility through channel membership', () => {
  let alice: TestUser;
  let channelId: string;
  let messageId: string;
  beforeAll(async () => {
    alice = await registerCreator(api);
    channelId = (await createChannel(api, alice.token)).id;
    messageId = (await postMessage(api, alice.token, { content: 'members only', channel_ids: [channelId] }))
      .id;
  });

  it('when a member reads an included message, then it is visible, with the channel listed', async () => {
    const member = await registerUser(api);
    await addMember(api, alice.token, channelId, { uid: member.uid });
    const res = await get<Message>(member.token, `/v1/messages/${messageId}`);
    expect(res.status).toBe(200);
    expect(res.body.channel_ids).toEqual([channelId]);
  });

  it('when a non-member reads it, then the same 404 as a missing message', async () => {
    const stranger = await registerUser(api);
    const res = await get(stranger.token, `/v1/messages/${messageId}`);
    expectError(res, 404, 'message_not_found');
    expect(res.body).toEqual((await get(stranger.token, `/v1/messages/${MISSING}`)).body);
  });

  it('when an admin removes the member, then the ex-member gets 404', async () => {
    const member = await registerWriter(api);
    await addMember(api, alice.token, channelId, { uid: member.uid });
    expect((await get(member.token, `/v1/messages/${messageId}`)).status).toBe(200);
    const removed = await api.request('DELETE', `/v1/channels/${channelId}/members/${member.uid}`, {
      token: alice.token,
    });
    expect(removed.status).toBe(200);
    expectError(await get(member.token, `/v1/messages/${messageId}`), 404, 'message_not_found');
  });

  it('when the member leaves, then it gets 404', async () => {
    const member = await registerWriter(api);
    await addMember(api, alice.token, channelId, { uid: member.uid });
    expect((await get(member.token, `/v1/messages/${messageId}`)).status).toBe(200);
    const left = await api.request('DELETE', `/v1/channels/${channelId}/members/${member.uid}`, {
      token: member.token,
    });
    expect(left.status).toBe(200);
    expectError(await get(member.token, `/v1/messages/${messageId}`), 404, 'message_not_found');
  });

  it('when the message is taken out of the channel, then members get 404', async () => {
    const member = await registerUser(api);
    const channel = await channelWith(api, alice, [member]);
    const message = await postMessage(api, alice.token, { content: 'brief', channel_ids: [channel.id] });
    expect((await get(member.token, `/v1/messages/${message.id}`)).status).toBe(200);
    await setChannels(alice.token, message.id, { channel_ids: [] });
    expectError(await get(member.token, `/v1/messages/${message.id}`), 404, 'message_not_found');
  });
});
