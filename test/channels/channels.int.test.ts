// Channels and their members over REST: GET/POST /v1/channels, GET/PATCH/DELETE
// /v1/channels/{channel_id}, GET/POST /v1/channels/{channel_id}/members and
// DELETE /v1/channels/{channel_id}/members/{uid}.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerUser, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  TIMESTAMP,
  addMember,
  channelWith,
  createChannel,
  expectError,
  expectValidation,
  registerCreator,
  registerWithScopes,
  type Channel,
  type Member,
} from './channel-helpers.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const MISSING_CHANNEL = '00000000';

const get = <T>(token: string | undefined, path: string) => api.request<T>('GET', path, { token });

describe('POST /v1/channels', () => {
  it('when a caller holding channels.create creates one, then 201 with the ChannelOutput and the caller as admin', async () => {
    const creator = await registerCreator(api);
    const res = await api.request<Channel>('POST', '/v1/channels', {
      token: creator.token,
      body: { display_name: '  Design  ', description: 'All things design.' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      'created_at',
      'created_by',
      'description',
      'display_name',
      'id',
      'is_admin',
      'member_count',
    ]);
    expect(res.body).toMatchObject({
      display_name: 'Design',
      description: 'All things design.',
      created_by: creator.uid,
      is_admin: true,
      member_count: 1,
    });
    expect(res.body.id).toMatch(/^[0-9a-f]{8}$/);
    expect(res.body.created_at).toMatch(TIMESTAMP);

    const members = await get<{ members: Member[] }>(creator.token, `/v1/channels/${res.body.id}/members`);
    expect(members.body.members).toEqual([
      {
        uid: creator.uid,
        user_tag: creator.tag,
        is_admin: true,
        joined_at: expect.stringMatching(TIMESTAMP),
      },
    ]);
  });

  it('when no description is given, then it is null', async () => {
    const creator = await registerCreator(api);
    const channel = await createChannel(api, creator.token, { display_name: 'x' });
    expect(channel.description).toBeNull();
  });

  it('when the name is 100 characters and the description 2000, then both are kept', async () => {
    const creator = await registerCreator(api);
    const channel = await createChannel(api, creator.token, {
      display_name: 'n'.repeat(100),
      description: 'd'.repeat(2000),
    });
    expect(channel.display_name).toHaveLength(100);
    expect(channel.description).toHaveLength(2000);
  });

  it('when the caller lacks channels.create, then 403 insufficient_scope and nothing is created', async () => {
    const writer = await registerWriter(api);
    const res = await api.request('POST', '/v1/channels', {
      token: writer.token,
      body: { display_name: 'Nope' },
    });
    expectError(res, 403, 'insufficient_scope');
    const mine = await get<Channel[]>(writer.token, '/v1/channels');
    expect(mine.body).toEqual([]);
  });

  it('when no credentials are sent, then 401', async () => {
    const res = await api.request('POST', '/v1/channels', { body: { display_name: 'Anon' } });
    expectError(res, 401, 'not_authenticated');
  });

  it.each([
    ['no display_name', {}, ['body', 'display_name']],
    ['a blank display_name', { display_name: '   ' }, ['body', 'display_name']],
    ['a 101-character display_name', { display_name: 'n'.repeat(101) }, ['body', 'display_name']],
    [
      'a 2001-character description',
      { display_name: 'ok', description: 'd'.repeat(2001) },
      ['body', 'description'],
    ],
    ['an unknown field', { display_name: 'ok', colour: 'red' }, ['body']],
  ])('when the body has %s, then 422 at %j', async (_label, body, loc) => {
    const creator = await registerCreator(api);
    const res = await api.request('POST', '/v1/channels', { token: creator.token, body });
    expectValidation(res, loc);
  });
});

describe('GET /v1/channels', () => {
  it('when the caller belongs to some channels, then exactly those, each with its own admin flag and member count', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const ours = await channelWith(api, alice, [bob]);
    const bobs = await createChannel(api, (await registerCreator(api)).token, { display_name: 'Other' });
    const aliceOnly = await createChannel(api, alice.token, { display_name: 'alpha' });

    const forAlice = await get<Channel[]>(alice.token, '/v1/channels');
    expect(forAlice.status).toBe(200);
    // Ordered by display name, case-insensitively.
    expect(forAlice.body.map((c) => c.id)).toEqual([aliceOnly.id, ours.id]);
    expect(forAlice.body[1]).toMatchObject({ is_admin: true, member_count: 2 });

    const forBob = await get<Channel[]>(bob.token, '/v1/channels');
    expect(forBob.body).toEqual([{ ...ours, is_admin: false, member_count: 2 }]);
    expect(forBob.body.map((c) => c.id)).not.toContain(bobs.id);
  });

  it('when no credentials are sent, then 401', async () => {
    expectError(await get(undefined, '/v1/channels'), 401, 'not_authenticated');
  });
});

describe('GET /v1/channels/{channel_id}', () => {
  it('when a plain member reads it, then the channel with is_admin false', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerUser(api)]);
    const channel = await channelWith(api, alice, [bob]);
    const res = await get<Channel>(bob.token, `/v1/channels/${channel.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...channel, is_admin: false, member_count: 2 });
  });

  it('when a non-member reads it, then 403 not_channel_member', async () => {
    const [alice, stranger] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await createChannel(api, alice.token);
    expectError(await get(stranger.token, `/v1/channels/${channel.id}`), 403, 'not_channel_member');
  });

  it('when the channel does not exist, then 404 channel_not_found', async () => {
    const alice = await registerCreator(api);
    expectError(await get(alice.token, `/v1/channels/${MISSING_CHANNEL}`), 404, 'channel_not_found');
  });

  it('when the id is malformed, then 422', async () => {
    const alice = await registerCreator(api);
    expectValidation(await get(alice.token, '/v1/channels/NOT-AN-ID'), ['path', 'channel_id']);
  });

  it('when no credentials are sent, then 401', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token);
    expectError(await get(undefined, `/v1/channels/${channel.id}`), 401, 'not_authenticated');
  });
});

describe('PATCH /v1/channels/{channel_id}', () => {
  const patch = (token: string | undefined, id: string, body: unknown) =>
    api.request<Channel>('PATCH', `/v1/channels/${id}`, { token, body });

  it('when an admin changes the name, then only the name changes; a null description clears it', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token, { display_name: 'Old', description: 'Keep me' });
    const renamed = await patch(alice.token, channel.id, { display_name: 'New' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...channel, display_name: 'New' });

    const cleared = await patch(alice.token, channel.id, { description: null });
    expect(cleared.body).toEqual({ ...channel, display_name: 'New', description: null });
    const read = await get<Channel>(alice.token, `/v1/channels/${channel.id}`);
    expect(read.body).toEqual(cleared.body);
  });

  it('when the body is empty, then nothing changes and the channel is answered', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token, { description: 'd' });
    const res = await patch(alice.token, channel.id, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(channel);
  });

  it('when a member who is not an admin patches, then 403 not_channel_admin and nothing changes', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await channelWith(api, alice, [bob]);
    expectError(await patch(bob.token, channel.id, { display_name: 'Hijack' }), 403, 'not_channel_admin');
    const read = await get<Channel>(alice.token, `/v1/channels/${channel.id}`);
    expect(read.body.display_name).toBe(channel.display_name);
  });

  it('when an admin of another channel patches this one, then 403', async () => {
    const [alice, mallory] = await Promise.all([registerCreator(api), registerCreator(api)]);
    const channel = await createChannel(api, alice.token);
    await createChannel(api, mallory.token);
    const res = await patch(mallory.token, channel.id, { display_name: 'Hijack' });
    expect(res.status).toBe(403);
  });

  it('when an admin lacks messages.write, then 403 insufficient_scope', async () => {
    const reader = await registerWithScopes(api, ['messages.read', 'channels.create']);
    const channel = await createChannel(api, reader.token);
    expectError(await patch(reader.token, channel.id, { display_name: 'x' }), 403, 'insufficient_scope');
  });

  it('when the channel does not exist, then 404 channel_not_found', async () => {
    const alice = await registerCreator(api);
    expectError(await patch(alice.token, MISSING_CHANNEL, { display_name: 'x' }), 404, 'channel_not_found');
  });

  it('when the name is empty or an unknown field is sent, then 422', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token);
    expectValidation(await patch(alice.token, channel.id, { display_name: '' }), ['body', 'display_name']);
    expectValidation(await patch(alice.token, channel.id, { display_name: null }), ['body', 'display_name']);
    expectValidation(await patch(alice.token, channel.id, { id: 'abcdef01' }), ['body']);
  });

  it('when no credentials are sent, then 401', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token);
    expectError(await patch(undefined, channel.id, { display_name: 'x' }), 401, 'not_authenticated');
  });
});

describe('DELETE /v1/channels/{channel_id}', () => {
  const del = (token: string | undefined, id: string) =>
    api.request('DELETE', `/v1/channels/${id}`, { token });

  it('when an admin deletes it, then it is gone with its memberships, and its messages stay', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await channelWith(api, alice, [bob]);
    const message = await postMessage(api, alice.token, {
      content: 'in the channel',
      channel_ids: [channel.id],
    });
    expect((await get(bob.token, `/v1/messages/${message.id}`)).status).toBe(200);

    const res = await del(alice.token, channel.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: channel.id, deleted: true });

    expectError(await get(alice.token, `/v1/channels/${channel.id}`), 404, 'channel_not_found');
    expect((await get<Channel[]>(bob.token, '/v1/channels')).body).toEqual([]);
    const kept = await get<{ channel_ids: string[] }>(alice.token, `/v1/messages/${message.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.channel_ids).toEqual([]);
    // Bob saw it only through the channel.
    expectError(await get(bob.token, `/v1/messages/${message.id}`), 404, 'message_not_found');
  });

  it('when a member who is not an admin deletes it, then 403 not_channel_admin and it stays', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await channelWith(api, alice, [bob]);
    expectError(await del(bob.token, channel.id), 403, 'not_channel_admin');
    expect((await get(alice.token, `/v1/channels/${channel.id}`)).status).toBe(200);
  });

  it('when a non-member deletes it, then 403', async () => {
    const [alice, mallory] = await Promise.all([registerCreator(api), registerCreator(api)]);
    const channel = await createChannel(api, alice.token);
    expect((await del(mallory.token, channel.id)).status).toBe(403);
    expect((await get(alice.token, `/v1/channels/${channel.id}`)).status).toBe(200);
  });

  it('when the channel does not exist, then 404; without credentials, 401', async () => {
    const alice = await registerCreator(api);
    expectError(await del(alice.token, MISSING_CHANNEL), 404, 'channel_not_found');
    expectError(await del(undefined, MISSING_CHANNEL), 401, 'not_authenticated');
  });
});

describe('GET /v1/channels/{channel_id}/members', () => {
  it('when a member lists them, then every member in joining order', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerCreator(api),
      registerUser(api),
      registerUser(api),
    ]);
    const channel = await channelWith(api, alice, [bob, carol]);
    const res = await get<{ members: Member[] }>(carol.token, `/v1/channels/${channel.id}/members`);
    expect(res.status).toBe(200);
    expect(res.body.members.map((m) => [m.uid, m.user_tag, m.is_admin])).toEqual([
      [alice.uid, alice.tag, true],
      [bob.uid, bob.tag, false],
      [carol.uid, carol.tag, false],
    ]);
    for (const m of res.body.members) expect(m.joined_at).toMatch(TIMESTAMP);
  });

  it('when a non-member lists them, then 403; an unknown channel 404; no credentials 401', async () => {
    const [alice, stranger] = await Promise.all([registerCreator(api), registerUser(api)]);
    const channel = await createChannel(api, alice.token);
    expectError(await get(stranger.token, `/v1/channels/${channel.id}/members`), 403, 'not_channel_member');
    expectError(await get(alice.token, `/v1/channels/${MISSING_CHANNEL}/members`), 404, 'channel_not_found');
    expectError(await get(undefined, `/v1/channels/${channel.id}/members`), 401, 'not_authenticated');
  });
});

describe('POST /v1/channels/{channel_id}/members', () => {
  const add = (token: string | undefined, id: string, body: unknown) =>
    api.request<Member>('POST', `/v1/channels/${id}/members`, { token, body });

  it('when an admin adds a user by @tag, then the member entry, not an admin, and the count grows', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerUser(api)]);
    const channel = await createChannel(api, alice.token);
    const res = await add(alice.token, channel.id, { user_tag: `@${bob.tag.toUpperCase()}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      uid: bob.uid,
      user_tag: bob.tag,
      is_admin: false,
      joined_at: expect.stringMatching(TIMESTAMP),
    });
    expect((await get<Channel>(bob.token, `/v1/channels/${channel.id}`)).body.member_count).toBe(2);
  });

  it('when an existing member is added again, then is_admin changes only when sent', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await createChannel(api, alice.token);
    const first = await addMember(api, alice.token, channel.id, { uid: bob.uid, is_admin: true });
    expect(first.is_admin).toBe(true);
    const again = await addMember(api, alice.token, channel.id, { uid: bob.uid });
    expect(again).toEqual(first);
    const demoted = await addMember(api, alice.token, channel.id, { user_tag: bob.tag, is_admin: false });
    expect(demoted).toEqual({ ...first, is_admin: false });
    const members = await get<{ members: Member[] }>(alice.token, `/v1/channels/${channel.id}/members`);
    expect(members.body.members).toHaveLength(2);
  });

  it('when a promoted member acts as admin, then it may patch the channel', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await createChannel(api, alice.token);
    await addMember(api, alice.token, channel.id, { uid: bob.uid, is_admin: true });
    const res = await api.request<Channel>('PATCH', `/v1/channels/${channel.id}`, {
      token: bob.token,
      body: { display_name: 'By Bob' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'By Bob', is_admin: true });
  });

  it('when the last admin demotes themself, then 409 last_channel_admin', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token);
    expectError(
      await add(alice.token, channel.id, { uid: alice.uid, is_admin: false }),
      409,
      'last_channel_admin',
    );
  });

  it('when a member who is not an admin adds someone, then 403 not_channel_admin and nobody is added', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerUser(api),
    ]);
    const channel = await channelWith(api, alice, [bob]);
    expectError(await add(bob.token, channel.id, { uid: carol.uid }), 403, 'not_channel_admin');
    expectError(await add(bob.token, channel.id, { uid: bob.uid, is_admin: true }), 403, 'not_channel_admin');
    expectError(await get(carol.token, `/v1/channels/${channel.id}`), 403, 'not_channel_member');
  });

  it('when a non-member adds themself, then 403', async () => {
    const [alice, mallory] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await createChannel(api, alice.token);
    expect((await add(mallory.token, channel.id, { uid: mallory.uid })).status).toBe(403);
  });

  it('when the user does not exist, then 404 user_not_found (but a non-admin still gets 403)', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await channelWith(api, alice, [bob]);
    expectError(await add(alice.token, channel.id, { user_tag: 'no-such-user-x1' }), 404, 'user_not_found');
    expectError(await add(alice.token, channel.id, { uid: 'ffffffff' }), 404, 'user_not_found');
    expectError(await add(bob.token, channel.id, { uid: 'ffffffff' }), 403, 'not_channel_admin');
  });

  it('when the channel does not exist, then 404 channel_not_found', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerUser(api)]);
    expectError(await add(alice.token, MISSING_CHANNEL, { uid: bob.uid }), 404, 'channel_not_found');
  });

  it('when both or neither of user_tag and uid are sent, or a field is malformed, then 422', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerUser(api)]);
    const channel = await createChannel(api, alice.token);
    expectValidation(await add(alice.token, channel.id, { uid: bob.uid, user_tag: bob.tag }), ['body']);
    expectValidation(await add(alice.token, channel.id, { is_admin: true }), ['body']);
    expectValidation(await add(alice.token, channel.id, { uid: 'XYZ' }), ['body', 'uid']);
    expectValidation(await add(alice.token, channel.id, { uid: bob.uid, is_admin: 'yes' }), [
      'body',
      'is_admin',
    ]);
  });

  it('when an admin lacks messages.write, then 403 insufficient_scope', async () => {
    const [reader, bob] = await Promise.all([
      registerWithScopes(api, ['messages.read', 'channels.create']),
      registerUser(api),
    ]);
    const channel = await createChannel(api, reader.token);
    expectError(await add(reader.token, channel.id, { uid: bob.uid }), 403, 'insufficient_scope');
  });

  it('when no credentials are sent, then 401', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerUser(api)]);
    const channel = await createChannel(api, alice.token);
    expectError(await add(undefined, channel.id, { uid: bob.uid }), 401, 'not_authenticated');
  });
});

describe('DELETE /v1/channels/{channel_id}/members/{uid}', () => {
  const remove = (token: string | undefined, id: string, uid: string) =>
    api.request('DELETE', `/v1/channels/${id}/members/${uid}`, { token });

  it('when an admin removes a member, then it is out and the count shrinks', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const channel = await channelWith(api, alice, [bob, carol]);
    const res = await remove(alice.token, channel.id, bob.uid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ channel_id: channel.id, uid: bob.uid, removed: true });
    expectError(await get(bob.token, `/v1/channels/${channel.id}`), 403, 'not_channel_member');
    const read = await get<Channel>(carol.token, `/v1/channels/${channel.id}`);
    expect(read.body.member_count).toBe(2);
  });

  it('when a member leaves, then it is out', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await channelWith(api, alice, [bob]);
    const res = await remove(bob.token, channel.id, bob.uid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ channel_id: channel.id, uid: bob.uid, removed: true });
    expect((await get<Channel[]>(bob.token, '/v1/channels')).body).toEqual([]);
  });

  it('when a member who is not an admin removes another, then 403 not_channel_admin and both stay', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const channel = await channelWith(api, alice, [bob, carol]);
    expectError(await remove(bob.token, channel.id, carol.uid), 403, 'not_channel_admin');
    expectError(await remove(bob.token, channel.id, alice.uid), 403, 'not_channel_admin');
    expect((await get<Channel>(alice.token, `/v1/channels/${channel.id}`)).body.member_count).toBe(3);
  });

  it('when an admin of another channel removes a member here, then 403', async () => {
    const [alice, bob, mallory] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerCreator(api),
    ]);
    const channel = await channelWith(api, alice, [bob]);
    await createChannel(api, mallory.token);
    expect((await remove(mallory.token, channel.id, bob.uid)).status).toBe(403);
  });

  it('when the user is not a member, then 404 member_not_found', async () => {
    const [alice, carol] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await createChannel(api, alice.token);
    expectError(await remove(alice.token, channel.id, carol.uid), 404, 'member_not_found');
    expectError(await remove(carol.token, channel.id, carol.uid), 404, 'member_not_found');
  });

  it('when the last admin leaves, then 409 last_channel_admin; after promoting another, it may', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await channelWith(api, alice, [bob]);
    expectError(await remove(alice.token, channel.id, alice.uid), 409, 'last_channel_admin');
    await addMember(api, alice.token, channel.id, { uid: bob.uid, is_admin: true });
    expect((await remove(alice.token, channel.id, alice.uid)).status).toBe(200);
    const members = await get<{ members: Member[] }>(bob.token, `/v1/channels/${channel.id}/members`);
    expect(members.body.members.map((m) => [m.uid, m.is_admin])).toEqual([[bob.uid, true]]);
  });

  it('when the channel does not exist, the uid is malformed, or no credentials are sent, then 404, 422, 401', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token);
    expectError(await remove(alice.token, MISSING_CHANNEL, alice.uid), 404, 'channel_not_found');
    expectValidation(await remove(alice.token, channel.id, 'nope'), ['path', 'uid']);
    expectError(await remove(undefined, channel.id, alice.uid), 401, 'not_authenticated');
  });

  it('when a member lacks messages.write, then 403 insufficient_scope', async () => {
    const [alice, reader] = await Promise.all([registerCreator(api), registerUser(api)]);
    const channel = await channelWith(api, alice, [reader]);
    expectError(await remove(reader.token, channel.id, reader.uid), 403, 'insufficient_scope');
  });
});

describe('OpenAPI', () => {
  it('when the document is read, then every channel operation is in it with its description', async () => {
    const res = await api.request<{ paths: Record<string, Record<string, { description?: string }>> }>(
      'GET',
      '/v1/openapi.json',
    );
    expect(res.status).toBe(200);
    const operations = [
      ['/v1/channels', 'get'],
      ['/v1/channels', 'post'],
      ['/v1/channels/{channel_id}', 'get'],
      ['/v1/channels/{channel_id}', 'patch'],
      ['/v1/channels/{channel_id}', 'delete'],
      ['/v1/channels/{channel_id}/members', 'get'],
      ['/v1/channels/{channel_id}/members', 'post'],
      ['/v1/channels/{channel_id}/members/{uid}', 'delete'],
      ['/v1/channels/{channel_id}/messages', 'get'],
      ['/v1/messages/{message_id}/channels', 'patch'],
    ] as const;
    for (const [path, method] of operations) {
      expect(res.body.paths[path]?.[method]?.description).toEqual(expect.any(String));
    }
    expect(res.body.paths['/v1/messages/{message_id}/channels']?.patch?.description).toMatch(
      /channels you are not in/,
    );
  });
});
