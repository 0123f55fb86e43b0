// The delivery log, GET /v1/managed/users/{uid}/deliveries and Query.deliveries: who may read it,
// its shape and order, pagination and its error statuses, and that it shows each body as it would
// be built now (never deleted content). No dispatcher runs in this file: the tests plan deliveries
// from the event log themselves (planNow); the dispatchers of webhooks.int.test.ts may send them
// meanwhile, so nothing here depends on a delivery's state.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  createManaged,
  registerUser,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  botWithEndpoint,
  messageTo,
  planNow,
  readDeliveries,
  verifyEndpoint,
  type Bot,
  type DeliveryPage,
} from './webhook-helpers.js';

let api: TestServer;
let manager: TestUser;
let receiver: WebhookReceiver;
let bot: Bot;
/** Message ids in the order they were posted to the bot. */
const posted: string[] = [];

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DELIVERY_FIELDS = [
  'attempts',
  'created_at',
  'delivered_at',
  'event',
  'last_error',
  'last_status',
  'log',
  'next_attempt_at',
  'state',
  'type',
  'url',
  'webhook_id',
];

beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' });
  manager = await registerWriter(api);
  receiver = await startWebhookReceiver();
  bot = await botWithEndpoint(api, manager, receiver);
  for (const content of ['one', 'two', 'three'])
    posted.push((await messageTo(api, manager, bot, content)).id);
  await planNow(api);
});

afterAll(async () => {
  await receiver.close();
  await api.close();
});

const firstIdOf = (page: DeliveryPage) =>
  page.deliveries.map((d) => (d.event!.content.messages[0] as { id: string }).id);

describe('GET /v1/managed/users/{uid}/deliveries', () => {
  it('when the manager reads a bot’s log, then every delivery is listed newest first with its payload', async () => {
    const res = await readDeliveries(api, manager.token, bot.uid);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ skip: 0, limit: 20, has_more: false });
    expect(firstIdOf(res.body)).toEqual([...posted].reverse());
    for (const delivery of res.body.deliveries) {
      expect(Object.keys(delivery).sort()).toEqual(DELIVERY_FIELDS);
      // msg_<event id without dashes>_<recipient uid>: one per event and recipient.
      expect(delivery.webhook_id).toMatch(new RegExp(`^msg_[0-9a-f]{32}_${bot.uid}$`));
      expect(delivery.type).toBe('sent');
      expect(delivery.url).toBe(receiver.url);
      expect(['pending', 'delivered']).toContain(delivery.state);
      expect(delivery.created_at).toMatch(TIMESTAMP);
      expect(delivery.event).toMatchObject({ type: 'sent', recipient_uid: bot.uid });
    }
    expect(new Set(res.body.deliveries.map((d) => d.webhook_id)).size).toBe(3);
  });

  it('when the bot reads its own log, then it sees the same deliveries', async () => {
    const res = await readDeliveries(api, bot.token, bot.uid);
    expect(res.status).toBe(200);
    expect(firstIdOf(res.body)).toEqual([...posted].reverse());
  });

  it('when a regular user with an endpoint reads their own log, then it lists their deliveries', async () => {
    const own = await startWebhookReceiver();
    try {
      const user = await registerWriter(api);
      await verifyEndpoint(api, user.token, own);
      const message = await messageTo(
        api,
        manager,
        { uid: user.uid, user_tag: user.tag, token: user.token },
        'hi',
      );
      await planNow(api);
      const res = await readDeliveries(api, user.token, user.uid);
      expect(res.status).toBe(200);
      expect(firstIdOf(res.body)).toEqual([message.id]);
    } finally {
      await own.close();
    }
  });

  it('when a user has no endpoint, then their log is empty', async () => {
    const plain = await createManaged(api, manager.token);
    await messageTo(api, manager, { ...plain, token: '' }, 'no endpoint here');
    await planNow(api);
    const res = await readDeliveries(api, manager.token, plain.uid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deliveries: [], skip: 0, limit: 20, has_more: false });
  });

  it('when a message was deleted or hidden from the user after its delivery was planned, then the log shows its event as null, never the content', async () => {
    const other = await botWithEndpoint(api, manager, receiver);
    const gone = await messageTo(api, manager, other, 'deleted later qzgoneword');
    const hidden = await messageTo(api, manager, other, 'hidden later qzhiddenword');
    const kept = await messageTo(api, manager, other, 'kept');
    await planNow(api);
    const before = await readDeliveries(api, manager.token, other.uid);
    expect(firstIdOf(before.body)).toEqual([kept.id, hidden.id, gone.id]);

    expect((await api.request('DELETE', `/v1/messages/${gone.id}`, { token: manager.token })).status).toBe(
      200,
    );
    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: manager.token,
      body: { message_id: hidden.id, recipient_uid: other.uid },
    });
    expect(removed.status).toBe(200);

    const after = await readDeliveries(api, manager.token, other.uid);
    expect(after.status).toBe(200);
    expect(after.body.deliveries.map((d) => d.webhook_id)).toEqual(
      before.body.deliveries.map((d) => d.webhook_id),
    );
    expect(
      after.body.deliveries.map(
        (d) => d.event?.content.messages.map((m) => (m as { id: string }).id) ?? null,
      ),
    ).toEqual([[kept.id], null, null]);
    const text = JSON.stringify(after.body);
    expect(text).not.toContain('qzgoneword');
    expect(text).not.toContain('qzhiddenword');
    // The bot itself reads the same.
    expect(JSON.stringify((await readDeliveries(api, other.token, other.uid)).body)).not.toContain(
      'qzgoneword',
    );
  });

  it('when paging, then skip and limit cut the newest-first list and has_more says whether more follow', async () => {
    const first = await readDeliveries(api, manager.token, bot.uid, '?limit=2');
    expect(first.body).toMatchObject({ skip: 0, limit: 2, has_more: true });
    expect(firstIdOf(first.body)).toEqual([posted[2], posted[1]]);
    const rest = await readDeliveries(api, manager.token, bot.uid, '?skip=2&limit=2');
    expect(rest.body).toMatchObject({ skip: 2, limit: 2, has_more: false });
    expect(firstIdOf(rest.body)).toEqual([posted[0]]);
  });

  it('when someone else reads the log, then 403 not_manager, the same for a uid that does not exist', async () => {
    const stranger = await registerUser(api);
    const res = await readDeliveries(api, stranger.token, bot.uid);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'You do not manage that user.', code: 'not_manager' });
    const missing = await readDeliveries(api, stranger.token, '00000000');
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual(res.body);
  });

  it('when another bot of the same manager reads the log, then 403 not_manager', async () => {
    const sibling = await botWithEndpoint(api, manager, receiver);
    const res = await readDeliveries(api, sibling.token, bot.uid);
    expect(res.status).toBe(403);
    expect((res.body as unknown as { code: string }).code).toBe('not_manager');
  });

  it('when the session lacks messages.read, then 403 insufficient_scope', async () => {
    const keyed = await registerWriter(api, { apiAccess: true });
    const keyedBot = await createManaged(api, keyed.token);
    const { key } = await createKey(api, keyed.token);
    const narrow = await api.request<{ access_token: string }>('POST', '/v1/auth/token', {
      apiKey: key,
      body: { requested_permissions: 'messages.write' },
    });
    expect(narrow.status).toBe(200);
    const res = await readDeliveries(api, narrow.body.access_token, keyedBot.uid);
    expect(res.status).toBe(403);
    expect((res.body as unknown as { code: string }).code).toBe('insufficient_scope');
  });

  it('when not signed in, then 401', async () => {
    const res = await api.request('GET', `/v1/managed/users/${bot.uid}/deliveries`);
    expect(res.status).toBe(401);
  });

  it.each([
    ['?limit=0', 'query', 'limit'],
    ['?limit=101', 'query', 'limit'],
    ['?skip=-1', 'query', 'skip'],
    ['?limit=ten', 'query', 'limit'],
  ])('when the query is %s, then 422 naming it', async (query, where, field) => {
    const res = await api.request<{ code: string; detail: { loc: string[] }[] }>(
      'GET',
      `/v1/managed/users/${bot.uid}/deliveries${query}`,
      { token: manager.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.detail[0]!.loc).toEqual([where, field]);
  });

  it('when the uid is not 8 hex characters, then 422', async () => {
    const res = await api.request<{ code: string; detail: { loc: string[] }[] }>(
      'GET',
      '/v1/managed/users/NOT-A-UID/deliveries',
      { token: manager.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]!.loc).toEqual(['path', 'uid']);
  });
});

describe('Query.deliveries', () => {
  const QUERY = `query ($uid: String!, $skip: Int, $limit: Int) {
    deliveries(uid: $uid, skip: $skip, limit: $limit) {
      skip limit has_more
      deliveries {
        webhook_id type url state attempts last_status last_error next_attempt_at created_at delivered_at
        log { attempt at url status error duration_ms }
        event { type recipient_uid content { messages { id content parent_id author { uid user_tag } } context { id } } }
      }
    }
  }`;

  it('when the manager asks, then the same page as REST', async () => {
    const res = await api.graphql<{ deliveries: DeliveryPage }>(
      QUERY,
      { uid: bot.uid, limit: 2 },
      { token: manager.token },
    );
    expect(res.body.errors).toBeUndefined();
    const rest = await readDeliveries(api, manager.token, bot.uid, '?limit=2');
    expect(res.body.data!.deliveries).toMatchObject({ skip: 0, limit: 2, has_more: true });
    expect(res.body.data!.deliveries.deliveries.map((d) => d.webhook_id)).toEqual(
      rest.body.deliveries.map((d) => d.webhook_id),
    );
    expect(res.body.data!.deliveries.deliveries[0]!.event).toEqual(rest.body.deliveries[0]!.event);
  });

  it('when a delivery’s message was deleted, then its event is null there too, with no error', async () => {
    const other = await botWithEndpoint(api, manager, receiver);
    const gone = await messageTo(api, manager, other, 'deleted later qzgqlgoneword');
    await planNow(api);
    expect((await api.request('DELETE', `/v1/messages/${gone.id}`, { token: manager.token })).status).toBe(
      200,
    );
    const res = await api.graphql<{ deliveries: DeliveryPage }>(
      QUERY,
      { uid: other.uid },
      { token: manager.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.deliveries.deliveries).toHaveLength(1);
    expect(res.body.data!.deliveries.deliveries[0]!.event).toBeNull();
    expect(JSON.stringify(res.body)).not.toContain('qzgqlgoneword');
  });

  it('when a stranger asks, then the error carries not_manager and 403', async () => {
    const stranger = await registerUser(api);
    const res = await api.graphql(QUERY, { uid: bot.uid }, { token: stranger.token });
    expect(res.body.data).toBeNull();
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'not_manager', status: 403 });
  });

  it('when the limit is out of range, then a validation error', async () => {
    const res = await api.graphql(QUERY, { uid: bot.uid, limit: 500 }, { token: manager.token });
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'validation_error', status: 422 });
  });
});
