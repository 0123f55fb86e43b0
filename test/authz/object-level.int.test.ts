// Object- and function-level authorization, route by route (OWASP API1 and API5): a stranger holding
// every scope a normal writer has calls each route that takes an id with someone else's object (a
// private message, a channel, an API key, a managed user, a file, a delivery log) and with admin or
// manager functions. Each call must be refused (404 for what the caller may not know exists, 403 for
// what they may not do), and nothing may change. A route with an id that is missing from the table
// below fails the coverage check, so new routes cannot slip past.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { channelWith, registerCreator } from '../channels/channel-helpers.js';
import {
  createKey,
  createManaged,
  postMessage,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let owner: TestUser;
let stranger: TestUser;
const ids: Record<string, string> = {};

interface Attempt {
  /** `METHOD /path/{param}` as in the OpenAPI document. */
  route: string;
  body?: unknown;
  query?: string;
  /** Allowed statuses: 404 hides existence, 403 refuses a known object. */
  expect: number[];
}

const MESSAGE_404 = { detail: 'Message not found.', code: 'message_not_found' };

/** Every route that takes an id, called by the stranger with the owner's objects. */
const ATTEMPTS: Attempt[] = [
  { route: 'GET /v1/messages/{message_id}', expect: [404] },
  { route: 'DELETE /v1/messages/{message_id}', expect: [404] },
  { route: 'PATCH /v1/messages/{message_id}/public', body: { public: true }, expect: [404] },
  { route: 'PATCH /v1/messages/{message_id}/subject', body: { subject: 'taken over' }, expect: [404] },
  { route: 'PATCH /v1/messages/{message_id}/content', body: { content: 'taken over' }, expect: [404] },
  { route: 'GET /v1/messages/{message_id}/context', expect: [404] },
  { route: 'GET /v1/messages/{message_id}/edits', expect: [404] },
  { route: 'PATCH /v1/messages/{message_id}/tags', body: { tags: ['x'] }, expect: [404] },
  { route: 'PATCH /v1/messages/{message_id}/reply_order', body: { reply_order: null }, expect: [404] },
  {
    route: 'PATCH /v1/messages/{message_id}/default_outgoing',
    body: { default_outgoing: null },
    expect: [404],
  },
  { route: 'POST /v1/messages/{message_id}/read', body: {}, expect: [404] },
  { route: 'POST /v1/messages/{message_id}/thread/read', expect: [404] },
  { route: 'PUT /v1/messages/{message_id}/bookmark', expect: [404] },
  { route: 'DELETE /v1/messages/{message_id}/bookmark', expect: [404] },
  { route: 'PUT /v1/messages/{message_id}/reactions/{reaction}', expect: [404] },
  { route: 'DELETE /v1/messages/{message_id}/reactions/{reaction}', expect: [404] },
  { route: 'GET /v1/messages/{message_id}/reactions', expect: [404] },
  { route: 'POST /v1/links/messages/{message_id_from}/{message_id_to}', expect: [404] },
  { route: 'DELETE /v1/links/messages/{message_id_from}/{message_id_to}', expect: [404] },
  { route: 'GET /v1/links/messages/{message_id}/incoming', expect: [404] },
  { route: 'GET /v1/links/messages/{message_id}/outgoing', expect: [404] },
  { route: 'PATCH /v1/messages/{message_id}/channels', body: { channel_ids: [] }, expect: [404] },
  { route: 'GET /v1/messages/traverse-from/{message_id}', expect: [404] },
  { route: 'GET /v1/messages/{message_id}/tree-ids', expect: [404] },
  { route: 'GET /v1/messages/{message_id}/thread', expect: [404] },
  { route: 'GET /v1/messages/similar/{message_id}', expect: [404] },
  { route: 'GET /v1/messages/search/similar/{message_id}', expect: [404] },
  { route: 'POST /v1/messages/{message_id}/ping', body: { recipients: ['uid:{owner}'] }, expect: [404] },
  { route: 'POST /v1/streams/{stream_id}/chunks', body: { seq: 2, text: 'taken over' }, expect: [404] },
  { route: 'POST /v1/streams/{stream_id}/finish', body: { last_seq: 1 }, expect: [404] },
  { route: 'POST /v1/streams/{stream_id}/stop', expect: [404] },
  { route: 'GET /v1/streams/{stream_id}', expect: [404] },
  { route: 'GET /v1/channels/{channel_id}', expect: [403, 404] },
  { route: 'PATCH /v1/channels/{channel_id}', body: { display_name: 'mine now' }, expect: [403, 404] },
  { route: 'DELETE /v1/channels/{channel_id}', expect: [403, 404] },
  { route: 'GET /v1/channels/{channel_id}/members', expect: [403, 404] },
  { route: 'POST /v1/channels/{channel_id}/members', body: { uid: '{stranger}' }, expect: [403, 404] },
  { route: 'DELETE /v1/channels/{channel_id}/members/{uid}', expect: [403, 404] },
  { route: 'GET /v1/channels/{channel_id}/messages', expect: [403, 404] },
  { route: 'DELETE /v1/auth/keys/{key_id}', expect: [404] },
  { route: 'DELETE /v1/auth/sessions/{session_id}', expect: [404] },
  { route: 'POST /v1/auth/act-as/{subject_uid}', expect: [403] },
  { route: 'PATCH /v1/admin/users/{uid}', body: { scopes: ['admin'] }, expect: [403] },
  { route: 'GET /v1/files/{file_id}', expect: [404] },
  { route: 'GET /v1/managed/users/{uid}/deliveries', expect: [403, 404] },
  { route: 'POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver', expect: [403, 404] },
  { route: 'POST /v1/managed/users/{uid}/endpoint/secret/rotate', body: {}, expect: [403, 404] },
  { route: 'PATCH /v1/managed/users/{uid}/endpoint', body: { include_context: true }, expect: [403, 404] },
  { route: 'PATCH /v1/managed/users/{uid}', body: { display_name: 'taken over' }, expect: [403, 404] },
  { route: 'POST /v1/managed/users/{uid}/deactivate', expect: [403, 404] },
  { route: 'POST /v1/managed/users/{uid}/reactivate', expect: [403, 404] },
  { route: 'DELETE /v1/managed/users/{uid}', expect: [403, 404] },
  { route: 'GET /v1/managed/users/{uid}/managers', expect: [403, 404] },
  { route: 'POST /v1/managed/users/{uid}/managers', body: { uid: '{stranger}' }, expect: [403, 404] },
  { route: 'DELETE /v1/managed/users/{uid}/managers/{manager_uid}', expect: [403, 404] },
  // Nobody invited the stranger: it cannot make itself a manager, nor end someone else's invitation.
  { route: 'POST /v1/managed/invitations/{uid}/accept', expect: [404] },
  { route: 'POST /v1/managed/invitations/{uid}/decline', expect: [404] },
];

/**
 * Routes with an id that anyone may call on any object, by design. The conversation with a user
 * holds only messages between the caller and that user (test/threads/thread-and-conversation-views).
 */
const PUBLIC_BY_DESIGN = new Set(['GET /v1/users/by-tag/{user_tag}', 'GET /v1/messages/conversation/{uid}']);

beforeAll(async () => {
  api = await startTestServer();
  owner = await registerCreator(api);
  stranger = await registerWriter(api);
  const other = await registerWriter(api);
  const message = await postMessage(api, owner.token, { content: 'owner only', recipients: [other.tag] });
  const second = await postMessage(api, owner.token, { content: 'owner second' });
  const channel = await channelWith(api, owner, [other]);
  const stream = await api.request<{ stream_id: string }>('POST', '/v1/streams', {
    token: owner.token,
    body: { parent_id: message.id, content: 'owner streaming' },
  });
  expect(stream.status).toBe(201);
  const key = await createKey(api, owner.token);
  const bot = await createManaged(api, owner.token);
  const session = await api.request<{ session_id: string }>('GET', '/v1/auth/session', {
    token: owner.token,
  });
  const upload = new FormData();
  upload.append('file', new Blob(['secret bytes'], { type: 'text/plain' }), 'secret.txt');
  const file = await fetch(`${api.url}/v1/files/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: upload,
  });
  expect(file.status).toBe(200);
  Object.assign(ids, {
    message_id: message.id,
    message_id_from: message.id,
    message_id_to: second.id,
    channel_id: channel.id,
    stream_id: stream.body.stream_id,
    key_id: key.key_id,
    session_id: session.body.session_id,
    subject_uid: bot.uid,
    file_id: ((await file.json()) as { file_id: string }).file_id,
    owner: owner.uid,
    manager_uid: owner.uid,
    stranger: stranger.uid,
    other: other.uid,
    reaction: encodeURIComponent('👍'),
    // The stranger is refused as a non-manager before any delivery is looked up.
    webhook_id: 'msg_0badc0de0badc0de0badc0de0badc0de_0badc0de',
  });
});

afterAll(async () => {
  await api.close();
});

function fill(template: string, uidFor: string): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'uid' ? uidFor : ids[name]!));
}

describe('object-level authorization', () => {
  it('when the OpenAPI document lists a route with an id, then this file checks it', async () => {
    const doc = await api.request<{ paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/v1/openapi.json',
    );
    const withIds = Object.entries(doc.body.paths).flatMap(([path, operations]) =>
      path.includes('{') ? Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`) : [],
    );
    const covered = new Set(ATTEMPTS.map((a) => a.route));
    expect(withIds.filter((route) => !covered.has(route) && !PUBLIC_BY_DESIGN.has(route))).toEqual([]);
  });

  it.each(ATTEMPTS)(
    'when a stranger calls $route on objects that are not theirs, then it is refused',
    async (attempt) => {
      const [method, template] = attempt.route.split(' ') as [string, string];
      // {uid}: a channel member for the channel route, the owner's bot for the managed routes, the
      // owner for the admin route.
      const uid = template.includes('channels')
        ? ids.other!
        : template.includes('/managed/')
          ? ids.subject_uid!
          : ids.owner!;
      const body =
        attempt.body === undefined
          ? undefined
          : (JSON.parse(fill(JSON.stringify(attempt.body), uid)) as unknown);
      const res = await api.request('' + method, fill(template, uid) + (attempt.query ?? ''), {
        token: stranger.token,
        ...(body !== undefined ? { body } : {}),
      });
      expect(attempt.expect).toContain(res.status);
      expect(res.body).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
      if (template.includes('{message_id')) expect(res.body).toEqual(MESSAGE_404);
    },
  );

  it('when every refused attempt is over, then nothing of the owner changed', async () => {
    const message = await api.request<{
      content: string;
      public: boolean;
      subject: string | null;
      tags: string[];
    }>('GET', `/v1/messages/${ids.message_id}`, { token: owner.token });
    expect(message.status).toBe(200);
    expect(message.body).toMatchObject({ content: 'owner only', public: false, subject: null, tags: [] });
    const channel = await api.request<{ display_name: string; member_count: number }>(
      'GET',
      `/v1/channels/${ids.channel_id}`,
      { token: owner.token },
    );
    expect(channel.body).toMatchObject({ display_name: 'General', member_count: 2 });
    const keys = await api.request<{ keys: { key_id: string; revoked: boolean }[] }>('GET', '/v1/auth/keys', {
      token: owner.token,
    });
    expect(keys.body.keys.find((k) => k.key_id === ids.key_id)).toMatchObject({ revoked: false });
    const links = await api.request<{ links?: unknown[] }>(
      'GET',
      `/v1/links/messages/${ids.message_id_from}/outgoing`,
      { token: owner.token },
    );
    expect(JSON.stringify(links.body)).not.toContain(ids.message_id_to!);
    const me = await api.request<{ scopes: string[] }>('GET', '/v1/users/me', { token: stranger.token });
    expect(me.body.scopes).not.toContain('admin');
    const bots = await api.request<{
      users: { uid: string; display_name: string | null; deactivated_at: unknown }[];
    }>('GET', '/v1/managed/users', { token: owner.token });
    expect(bots.body.users.find((u) => u.uid === ids.subject_uid)).toMatchObject({
      display_name: null,
      deactivated_at: null,
    });
    const managers = await api.request<{ managers: { uid: string }[] }>(
      'GET',
      `/v1/managed/users/${ids.subject_uid}/managers`,
      { token: owner.token },
    );
    expect(managers.body.managers.map((m) => m.uid)).toEqual([ids.owner]);
  });
});

describe('function-level authorization', () => {
  it('when a writer calls admin functions, then 403 and nothing is granted', async () => {
    const metrics = await api.request('GET', '/v1/admin/metrics/messages-per-day', { token: stranger.token });
    expect(metrics.status).toBe(403);
    const grant = await api.request('PATCH', `/v1/admin/users/${stranger.uid}`, {
      token: stranger.token,
      body: { scopes: ['admin', 'channels.create'] },
    });
    expect(grant.status).toBe(403);
  });

  it('when someone who does not manage a bot asks to act as it or to delegate to it, then 403', async () => {
    const delegate = await api.request('POST', '/v1/managed/auth/delegate', {
      token: stranger.token,
      body: { managed_uid: ids.subject_uid },
    });
    expect(delegate.status).toBe(403);
    const actAs = await api.request('POST', `/v1/auth/act-as/${ids.subject_uid}`, { token: stranger.token });
    expect(actAs.status).toBe(403);
  });

  it('when a plain member tries channel admin actions, then 403', async () => {
    const admin = await registerCreator(api);
    const member = await registerWriter(api);
    const channel = await channelWith(api, admin, [member]);
    for (const [method, path, body] of [
      ['PATCH', `/v1/channels/${channel.id}`, { display_name: 'renamed' }],
      ['DELETE', `/v1/channels/${channel.id}`, undefined],
      ['POST', `/v1/channels/${channel.id}/members`, { uid: stranger.uid }],
      ['DELETE', `/v1/channels/${channel.id}/members/${admin.uid}`, undefined],
    ] as const) {
      const res = await api.request(method, path, { token: member.token, ...(body ? { body } : {}) });
      expect(res.status).toBe(403);
    }
  });
});
