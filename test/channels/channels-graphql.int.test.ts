// Channels over GraphQL: the channels, channel, channelMembers and channelMessages queries, the channel
// mutations, Channel.members, Channel.messages and Message.channels (which shows only channels the
// caller belongs to).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';
import {
  TIMESTAMP,
  channelWith,
  createChannel,
  registerCreator,
  registerWithScopes,
  type Channel,
  type ErrorBody,
  type Member,
} from './channel-helpers.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface GqlError {
  message: string;
  extensions?: Record<string, unknown>;
}
type GqlResponse<T> = ApiResponse<{ data: T | null; errors?: GqlError[] }>;

const CHANNEL = 'id display_name description created_at created_by is_admin member_count';

/** Message fields GraphQL answers as REST does (the graph fields aside), and author by uid. */
const MESSAGE_FIELDS = [
  'id',
  'content',
  'subject',
  'public',
  'timestamp',
  'edited_at',
  'parent_id',
  'root_id',
  'tags',
  'reply_order',
  'default_outgoing',
  'reply_ids',
  'stitch_parent_ids',
  'stitch_child_ids',
  'channel_ids',
  'is_saved',
] as const;
const PAGE = `skip limit has_more messages { ${MESSAGE_FIELDS.join(' ')} author { uid } reactions { reaction count me } }`;

interface Page {
  skip: number;
  limit: number;
  has_more: boolean;
  messages: (Record<string, unknown> & {
    id: string;
    content: string;
    author: { uid: string };
    reactions: { reaction: string; count: number; me: boolean }[];
  })[];
}

/** A REST page cut down to the fields PAGE selects. */
function asSelected(page: Page): Page {
  return {
    ...page,
    messages: page.messages.map((message) => ({
      ...(Object.fromEntries(
        MESSAGE_FIELDS.map((name) => [name, message[name]]),
      ) as Page['messages'][number]),
      author: { uid: message.author.uid },
      reactions: message.reactions,
    })),
  };
}

function gql<T>(token: string | undefined, query: string, variables: Record<string, unknown> = {}) {
  return api.graphql<T>(query, variables, { token });
}

function dataOf<T>(res: GqlResponse<T>): T {
  expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
  return res.body.data as T;
}

function expectGqlError<T>(res: GqlResponse<T>, code: string, status: number): void {
  expect(res.status).toBeLessThan(500);
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ code, status });
}

describe('queries', () => {
  let alice: TestUser;
  let bob: TestUser;
  let channel: Channel;
  let messageIds: string[];
  beforeAll(async () => {
    [alice, bob] = await Promise.all([registerCreator(api), registerUser(api)]);
    channel = await channelWith(api, alice, [bob]);
    messageIds = [];
    for (const content of ['first', 'second', 'third'])
      messageIds.push((await postMessage(api, alice.token, { content, channel_ids: [channel.id] })).id);
    // A reaction, so that comparing pages compares reactions too.
    const reacted = await api.request(
      'PUT',
      `/v1/messages/${messageIds[0]}/reactions/${encodeURIComponent('👍')}`,
      {
        token: alice.token,
      },
    );
    expect(reacted.status).toBe(200);
  });

  it('when a member asks for channels, then the same ChannelOutputs as REST', async () => {
    const data = dataOf(await gql<{ channels: Channel[] }>(bob.token, `{ channels { ${CHANNEL} } }`));
    const rest = await api.request<Channel[]>('GET', '/v1/channels', { token: bob.token });
    expect(data.channels).toEqual(rest.body);
    expect(data.channels).toEqual([{ ...channel, is_admin: false, member_count: 2 }]);
  });

  it('when a member asks for a channel with members and messages, then both, newest message first', async () => {
    const query = `query ($id: String!) { channel(channel_id: $id) { id
      members { uid user_tag is_admin joined_at user { uid user_tag } }
      messages(limit: 2) { skip limit has_more messages { id content channels { id is_admin } } } } }`;
    const data = dataOf(
      await gql<{
        channel: {
          id: string;
          members: {
            uid: string;
            user_tag: string;
            is_admin: boolean;
            joined_at: string;
            user: { uid: string };
          }[];
          messages: {
            skip: number;
            limit: number;
            has_more: boolean;
            messages: { id: string; content: string; channels: { id: string; is_admin: boolean }[] }[];
          };
        };
      }>(bob.token, query, { id: channel.id }),
    );
    expect(data.channel.members.map((m) => [m.uid, m.is_admin, m.user.uid])).toEqual([
      [alice.uid, true, alice.uid],
      [bob.uid, false, bob.uid],
    ]);
    expect(data.channel.members[1]!.joined_at).toMatch(TIMESTAMP);
    expect(data.channel.messages).toMatchObject({ skip: 0, limit: 2, has_more: true });
    expect(data.channel.messages.messages.map((m) => m.content)).toEqual(['third', 'second']);
    for (const m of data.channel.messages.messages)
      expect(m.channels).toEqual([{ id: channel.id, is_admin: false }]);
  });

  it('when messages are asked with limit 0 or 101, then validation_error 422', async () => {
    const query = `query ($id: String!, $limit: Int) { channel(channel_id: $id) { messages(limit: $limit) { has_more } } }`;
    expectGqlError(await gql(bob.token, query, { id: channel.id, limit: 0 }), 'validation_error', 422);
    expectGqlError(await gql(bob.token, query, { id: channel.id, limit: 101 }), 'validation_error', 422);
  });

  it('when a non-member asks for the channel, then not_channel_member 403; an unknown one 404', async () => {
    const stranger = await registerUser(api);
    const query = `query ($id: String!) { channel(channel_id: $id) { id } }`;
    expectGqlError(await gql(stranger.token, query, { id: channel.id }), 'not_channel_member', 403);
    expectGqlError(await gql(stranger.token, query, { id: '00000000' }), 'channel_not_found', 404);
  });

  it('when a member asks for channelMembers and channelMessages, then the answers equal GET /v1/channels/{channel_id}/members and /messages', async () => {
    const query = `query ($channel_id: String!) {
      channelMembers(channel_id: $channel_id) { members { uid user_tag is_admin joined_at } }
      firstPage: channelMessages(channel_id: $channel_id) { ${PAGE} }
      secondPage: channelMessages(channel_id: $channel_id, skip: 1, limit: 1) { ${PAGE} } }`;
    const data = dataOf(
      await gql<{ channelMembers: { members: Member[] }; firstPage: Page; secondPage: Page }>(
        bob.token,
        query,
        {
          channel_id: channel.id,
        },
      ),
    );
    const rest = async <T>(path: string) => {
      const res = await api.request<T>('GET', path, { token: bob.token });
      expect(res.status).toBe(200);
      return res.body;
    };
    expect(data.channelMembers).toEqual(
      await rest<{ members: Member[] }>(`/v1/channels/${channel.id}/members`),
    );
    expect(data.channelMembers.members.map((m) => [m.uid, m.is_admin])).toEqual([
      [alice.uid, true],
      [bob.uid, false],
    ]);
    expect(data.firstPage).toEqual(asSelected(await rest<Page>(`/v1/channels/${channel.id}/messages`)));
    expect(data.firstPage).toMatchObject({ skip: 0, limit: 15, has_more: false });
    expect(data.firstPage.messages.map((m) => m.id)).toEqual([...messageIds].reverse());
    expect(data.secondPage).toEqual(
      asSelected(await rest<Page>(`/v1/channels/${channel.id}/messages?skip=1&limit=1`)),
    );
    expect(data.secondPage).toMatchObject({ skip: 1, limit: 1, has_more: true });
    expect(data.secondPage.messages.map((m) => m.content)).toEqual(['second']);
  });

  it('when channelMembers and channelMessages are refused, then with the status and code REST answers', async () => {
    const [stranger, writeOnly] = await Promise.all([
      registerUser(api),
      registerWithScopes(api, ['messages.write']),
    ]);
    const own = await channelWith(api, alice, [writeOnly]);
    const cases = [
      {
        who: 'a non-member',
        token: stranger.token,
        channelId: own.id,
        status: 403,
        code: 'not_channel_member',
      },
      {
        who: 'a member without messages.read',
        token: writeOnly.token,
        channelId: own.id,
        status: 403,
        code: 'insufficient_scope',
      },
      {
        who: 'anyone, for an unknown channel',
        token: stranger.token,
        channelId: '00000000',
        status: 404,
        code: 'channel_not_found',
      },
      {
        who: 'a member, for a malformed id',
        token: alice.token,
        channelId: 'bad',
        status: 422,
        code: 'validation_error',
      },
      {
        who: 'nobody signed in',
        token: undefined,
        channelId: own.id,
        status: 401,
        code: 'not_authenticated',
      },
    ];
    for (const { who, token, channelId, status, code } of cases) {
      for (const [route, field, selection] of [
        ['members', 'channelMembers', 'members { uid }'],
        ['messages', 'channelMessages', 'has_more'],
      ] as const) {
        const rest = await api.request<ErrorBody>('GET', `/v1/channels/${channelId}/${route}`, { token });
        expect({ who, route, status: rest.status, code: rest.body.code }).toEqual({
          who,
          route,
          status,
          code,
        });
        const query = `query ($channel_id: String!) { ${field}(channel_id: $channel_id) { ${selection} } }`;
        expectGqlError(await gql(token, query, { channel_id: channelId }), code, status);
      }
    }
    // Paging is validated as on REST: limit 1–100.
    const rest = await api.request<ErrorBody>('GET', `/v1/channels/${own.id}/messages?limit=101`, {
      token: alice.token,
    });
    expect({ status: rest.status, code: rest.body.code }).toEqual({ status: 422, code: 'validation_error' });
    const query = `query ($channel_id: String!) { channelMessages(channel_id: $channel_id, limit: 101) { has_more } }`;
    expectGqlError(await gql(alice.token, query, { channel_id: own.id }), 'validation_error', 422);
  });

  it('when nobody is signed in, then not_authenticated 401', async () => {
    expectGqlError(await gql(undefined, `{ channels { id } }`), 'not_authenticated', 401);
  });
});

describe('Message.channels', () => {
  it('when a message is in channels of different people, then each sees only their own channels', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerCreator(api)]);
    const alices = await createChannel(api, alice.token, { display_name: 'Alice' });
    const bobs = await createChannel(api, bob.token, { display_name: 'Bob' });
    const message = await postMessage(api, alice.token, {
      content: 'both',
      recipients: [bob.tag],
      channel_ids: [alices.id],
    });
    await api.request('PATCH', `/v1/messages/${message.id}/channels`, {
      token: bob.token,
      body: { channel_ids: [bobs.id] },
    });

    const query = `query ($id: String!) { message(message_id: $id) { channel_ids channels { id display_name } } }`;
    type Data = { message: { channel_ids: string[]; channels: { id: string; display_name: string }[] } };
    const forAlice = dataOf(await gql<Data>(alice.token, query, { id: message.id }));
    expect(forAlice.message).toEqual({
      channel_ids: [alices.id],
      channels: [{ id: alices.id, display_name: 'Alice' }],
    });
    const forBob = dataOf(await gql<Data>(bob.token, query, { id: message.id }));
    expect(forBob.message).toEqual({
      channel_ids: [bobs.id],
      channels: [{ id: bobs.id, display_name: 'Bob' }],
    });
  });
});

describe('batching', () => {
  it('when a page of messages asks for its channels, then the channels load in one query', async () => {
    const alice = await registerCreator(api);
    const [one, two] = [await createChannel(api, alice.token), await createChannel(api, alice.token)];
    for (let i = 0; i < 6; i++)
      await postMessage(api, alice.token, {
        content: `b${i}`,
        channel_ids: i % 2 ? [one.id, two.id] : [one.id],
      });
    const db = api.ctx.db;
    const read = db.read.bind(db);
    const names: string[] = [];
    db.read = (name, params) => {
      names.push(name);
      return read(name, params);
    };
    try {
      const query = `query ($id: String!) { channel(channel_id: $id) { messages(limit: 6) { messages { channels { id } } } } }`;
      const data = dataOf(
        await gql<{ channel: { messages: { messages: { channels: { id: string }[] }[] } } }>(
          alice.token,
          query,
          {
            id: one.id,
          },
        ),
      );
      expect(data.channel.messages.messages.map((m) => m.channels.length).sort()).toEqual([1, 1, 1, 2, 2, 2]);
    } finally {
      db.read = read;
    }
    // One for the channel itself, one for the page's Message.channels.
    expect(names.filter((name) => name === 'channels/find-channels')).toHaveLength(2);
  });
});

describe('mutations', () => {
  const CREATE = `mutation ($input: ChannelCreateInput!) { createChannel(input: $input) { ${CHANNEL} } }`;
  const UPDATE = `mutation ($id: String!, $input: ChannelUpdateInput!) { updateChannel(channel_id: $id, input: $input) { ${CHANNEL} } }`;
  const ADD = `mutation ($channel_id: String!, $input: ChannelMemberInput!) {
    addChannelMember(channel_id: $channel_id, input: $input) { uid user_tag is_admin joined_at } }`;
  const REMOVE = `mutation ($channel_id: String!, $uid: String!) {
    removeChannelMember(channel_id: $channel_id, uid: $uid) { channel_id uid removed } }`;
  const DELETE = `mutation ($id: String!) { deleteChannel(channel_id: $id) { id deleted } }`;
  const SET = `mutation ($message_id: String!, $channel_ids: [String!]!) {
    setMessageChannels(message_id: $message_id, channel_ids: $channel_ids) { message_id channel_ids channels { id } } }`;

  it('when a creator runs the whole channel life cycle, then each step answers as REST does', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const created = dataOf(
      await gql<{ createChannel: Channel }>(alice.token, CREATE, { input: { display_name: 'Ops' } }),
    ).createChannel;
    expect(created).toMatchObject({
      display_name: 'Ops',
      description: null,
      is_admin: true,
      member_count: 1,
    });
    expect(created.created_by).toBe(alice.uid);

    const updated = dataOf(
      await gql<{ updateChannel: Channel }>(alice.token, UPDATE, {
        id: created.id,
        input: { description: 'On call' },
      }),
    ).updateChannel;
    expect(updated).toEqual({ ...created, description: 'On call' });

    const added = dataOf(
      await gql<{ addChannelMember: { uid: string; is_admin: boolean } }>(alice.token, ADD, {
        channel_id: created.id,
        input: { user_tag: bob.tag, is_admin: null },
      }),
    ).addChannelMember;
    expect(added).toMatchObject({ uid: bob.uid, user_tag: bob.tag, is_admin: false });

    const message = await postMessage(api, bob.token, { content: 'filed by graphql' });
    const set = dataOf(
      await gql<{
        setMessageChannels: { message_id: string; channel_ids: string[]; channels: { id: string }[] };
      }>(bob.token, SET, { message_id: message.id, channel_ids: [created.id] }),
    ).setMessageChannels;
    expect(set).toEqual({
      message_id: message.id,
      channel_ids: [created.id],
      channels: [{ id: created.id }],
    });
    const seen = await api.request('GET', `/v1/messages/${message.id}`, { token: alice.token });
    expect(seen.status).toBe(200);

    const removed = dataOf(
      await gql<{ removeChannelMember: unknown }>(bob.token, REMOVE, {
        channel_id: created.id,
        uid: bob.uid,
      }),
    ).removeChannelMember;
    expect(removed).toEqual({ channel_id: created.id, uid: bob.uid, removed: true });

    const deleted = dataOf(
      await gql<{ deleteChannel: unknown }>(alice.token, DELETE, { id: created.id }),
    ).deleteChannel;
    expect(deleted).toEqual({ id: created.id, deleted: true });
    expect((await api.request('GET', `/v1/channels/${created.id}`, { token: alice.token })).status).toBe(404);
  });

  it('when the caller lacks channels.create, then insufficient_scope 403', async () => {
    const writer = await registerWriter(api);
    expectGqlError(
      await gql(writer.token, CREATE, { input: { display_name: 'x' } }),
      'insufficient_scope',
      403,
    );
  });

  it('when a member who is not an admin updates, adds, removes others or deletes, then not_channel_admin 403', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerUser(api),
    ]);
    const channel = await channelWith(api, alice, [bob]);
    const id = channel.id;
    expectGqlError(
      await gql(bob.token, UPDATE, { id, input: { display_name: 'x' } }),
      'not_channel_admin',
      403,
    );
    expectGqlError(
      await gql(bob.token, ADD, { channel_id: id, input: { uid: carol.uid } }),
      'not_channel_admin',
      403,
    );
    expectGqlError(
      await gql(bob.token, REMOVE, { channel_id: id, uid: alice.uid }),
      'not_channel_admin',
      403,
    );
    expectGqlError(await gql(bob.token, DELETE, { id }), 'not_channel_admin', 403);
  });

  it('when arguments are malformed, then validation_error 422', async () => {
    const alice = await registerCreator(api);
    const channel = await createChannel(api, alice.token);
    expectGqlError(await gql(alice.token, CREATE, { input: { display_name: '' } }), 'validation_error', 422);
    expectGqlError(await gql(alice.token, DELETE, { id: 'bad' }), 'validation_error', 422);
    expectGqlError(
      await gql(alice.token, ADD, { channel_id: channel.id, input: { is_admin: true } }),
      'validation_error',
      422,
    );
    expectGqlError(
      await gql(alice.token, SET, { message_id: 'bad', channel_ids: [] }),
      'validation_error',
      422,
    );
  });

  it('when the target channel is not the caller’s, then setMessageChannels answers not_channel_member 403', async () => {
    const [alice, bob] = await Promise.all([registerCreator(api), registerCreator(api)]);
    const bobs = await createChannel(api, bob.token);
    const message = await postMessage(api, alice.token, { content: 'x' });
    expectGqlError(
      await gql(alice.token, SET, { message_id: message.id, channel_ids: [bobs.id] }),
      'not_channel_member',
      403,
    );
  });
});
