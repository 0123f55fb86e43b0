// Rotating a webhook endpoint's signing secret (POST /v1/managed/users/{uid}/endpoint/secret/rotate,
// Mutation.rotateEndpointSecret) and sending a delivery from the log again
// (POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver, Mutation.redeliver), end to end:
// a bot proves a loopback receiver, which checks every request with the `standardwebhooks` package's
// Webhook.verify, as a receiver would.
//
// Every file shares one database, and webhooks.int.test.ts decides which of its dispatchers run, so
// this file's dispatcher claims only the deliveries of this file's users (onlyUids). That file's
// dispatchers may still send ours while they run; the tests here hold whichever sends.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import {
  startWebhookDispatcher,
  type WebhookDispatcher,
} from '../../src/components/webhooks/webhook-dispatcher.js';
import { createLogger } from '../../src/platform/logger.js';
import { registerUser, registerWriter, createManaged, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '../support/webhook-receiver.js';
import {
  botWithEndpoint,
  messageTo,
  readDeliveries,
  verifyEndpoint,
  waitForDeliveries,
  type Bot,
  type Delivery,
} from './webhook-helpers.js';

jest.setTimeout(120_000);

interface Rotated {
  secret: string;
  previous_expires_at: string;
}

let api: TestServer;
let manager: TestUser;
let dispatcher: WebhookDispatcher;
/** The users whose deliveries this file's dispatcher claims. */
const mine = new Set<string>();
const receivers: WebhookReceiver[] = [];
/** Every log line the service writes during this file (the dispatcher's and the use cases'). */
const logLines: string[] = [];

beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' });
  // The routes read the context's logger at each request: this one keeps every line, at every level.
  api.ctx.log = createLogger('trace', {
    format: 'pretty',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  manager = await registerWriter(api);
  dispatcher = startWebhookDispatcher(api.ctx, { onlyUids: mine, pollMs: 200 });
});

afterAll(async () => {
  await dispatcher.stop();
  for (const receiver of receivers) await receiver.close();
  await api.close();
});

/** A bot of the manager whose endpoint is a new receiver, delivered to by this file's dispatcher. */
async function newBot(): Promise<{ bot: Bot; receiver: WebhookReceiver }> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  const bot = await botWithEndpoint(api, manager, receiver);
  mine.add(bot.uid);
  return { bot, receiver };
}

const rotate = (token: string, uid: string, body: unknown = {}) =>
  api.request<Rotated>('POST', `/v1/managed/users/${uid}/endpoint/secret/rotate`, { token, body });

const redeliver = (token: string, uid: string, webhookId: string) =>
  api.request<Delivery>('POST', `/v1/managed/users/${uid}/deliveries/${webhookId}/redeliver`, { token });

/**
 * Waits until the bot's log satisfies `predicate`, then reads it once more. Neo4j reads are
 * read-committed, so a read that overlaps an attempt's commit may show its new state beside the
 * fields from before it; the write seen has committed before the second read begins.
 */
async function logOf(bot: Bot, predicate: (deliveries: Delivery[]) => boolean): Promise<Delivery[]> {
  await waitForDeliveries(api, manager.token, bot.uid, predicate);
  return waitForDeliveries(api, manager.token, bot.uid, predicate);
}

/** Whether `secret` verifies the request, as a receiver holding it would check. */
function verifiesWith(secret: string, got: ReceivedWebhook): boolean {
  try {
    new Webhook(secret).verify(got.body, {
      'webhook-id': got.webhookId,
      'webhook-timestamp': got.timestamp,
      'webhook-signature': got.signature,
    });
    return true;
  } catch {
    return false;
  }
}

/** Waits for the `n`th request to the receiver (1-based). */
async function nthRequest(receiver: WebhookReceiver, n: number): Promise<ReceivedWebhook> {
  const received = await receiver.waitFor((r) => r.length >= n);
  return received[n - 1]!;
}

const secondsFromNow = (iso: string) => (Date.parse(iso) - Date.now()) / 1000;

/**
 * A delivery whose retry schedule is used up: the first attempt answered 503 with its retry ten
 * minutes away (so the test decides when it falls due), then, as if 66 hours of retries had failed,
 * the tenth is made at once and answered 503.
 */
async function failedDelivery(
  bot: Bot,
  receiver: WebhookReceiver,
  content: string,
): Promise<{ delivery: Delivery; messageId: string }> {
  receiver.answer({ status: 503, headers: { 'retry-after': '600' } }, { status: 503 });
  const message = await messageTo(api, manager, bot, content);
  const [first] = await logOf(bot, (d) => d[0]?.attempts === 1);
  await api.ctx.db.runText(
    'MATCH (d:Delivery {webhook_id: $id}) SET d.attempts = 9, d.next_attempt_at = datetime()',
    { id: first!.webhook_id },
  );
  const [failed] = await logOf(bot, (d) => d[0]?.state === 'failed');
  expect(failed).toMatchObject({ attempts: 10, next_attempt_at: null });
  return { delivery: failed!, messageId: message.id };
}

describe('POST /v1/managed/users/{uid}/endpoint/secret/rotate', () => {
  it('when the manager rotates with an overlap, then a new secret is shown and every delivery verifies with the new secret and with the old one', async () => {
    const { bot, receiver } = await newBot();
    const old = receiver.secret!;
    const res = await rotate(manager.token, bot.uid, { overlap_seconds: 3600 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['previous_expires_at', 'secret']);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.body.secret).not.toBe(old);
    expect(res.body.previous_expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(secondsFromNow(res.body.previous_expires_at)).toBeGreaterThan(3600 - 60);
    expect(secondsFromNow(res.body.previous_expires_at)).toBeLessThan(3600 + 60);

    await messageTo(api, manager, bot, 'signed twice');
    const got = await nthRequest(receiver, 1);
    // Standard Webhooks' rotation: the new signature first, then the old, space-separated.
    expect(got.signature).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(verifiesWith(res.body.secret, got)).toBe(true);
    expect(verifiesWith(old, got)).toBe(true);
    const [newOne, oldOne] = got.signature.split(' ');
    expect(verifiesWith(res.body.secret, { ...got, signature: newOne! })).toBe(true);
    expect(verifiesWith(old, { ...got, signature: oldOne! })).toBe(true);
    // The check is real: a secret that never signed fails it.
    expect(verifiesWith(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got)).toBe(false);
  });

  it('when no overlap_seconds is given, then the old secret signs for a day', async () => {
    const { bot } = await newBot();
    const res = await rotate(manager.token, bot.uid);
    expect(res.status).toBe(200);
    expect(secondsFromNow(res.body.previous_expires_at)).toBeGreaterThan(86_400 - 60);
    expect(secondsFromNow(res.body.previous_expires_at)).toBeLessThan(86_400 + 60);
  });

  it('when the overlap is 0, then the old secret ends at once: deliveries carry one signature, which the old secret no longer verifies', async () => {
    const { bot, receiver } = await newBot();
    const old = receiver.secret!;
    const res = await rotate(manager.token, bot.uid, { overlap_seconds: 0 });
    expect(res.status).toBe(200);
    expect(Math.abs(secondsFromNow(res.body.previous_expires_at))).toBeLessThan(60);

    await messageTo(api, manager, bot, 'signed once');
    const got = await nthRequest(receiver, 1);
    expect(got.signature.split(' ')).toHaveLength(1);
    expect(verifiesWith(res.body.secret, got)).toBe(true);
    expect(verifiesWith(old, got)).toBe(false);
  });

  it('when the overlap has passed, then only the new secret signs', async () => {
    const { bot, receiver } = await newBot();
    const old = receiver.secret!;
    const res = await rotate(manager.token, bot.uid, { overlap_seconds: 1 });
    expect(res.status).toBe(200);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Date.parse(res.body.previous_expires_at) - Date.now()) + 500),
    );

    await messageTo(api, manager, bot, 'after the overlap');
    const got = await nthRequest(receiver, 1);
    expect(got.signature.split(' ')).toHaveLength(1);
    expect(verifiesWith(res.body.secret, got)).toBe(true);
    expect(verifiesWith(old, got)).toBe(false);
  });

  it('when a delivery made before a rotation is retried after it, then the retry is signed with the secrets current when it is sent', async () => {
    const { bot, receiver } = await newBot();
    const old = receiver.secret!;
    // The retry is set ten minutes away, so the test decides when it falls due.
    receiver.answer({ status: 503, headers: { 'retry-after': '600' } });
    await messageTo(api, manager, bot, 'retried across a rotation');
    const first = await nthRequest(receiver, 1);
    expect(verifiesWith(old, first)).toBe(true);
    const [pending] = await logOf(bot, (d) => d[0]?.attempts === 1);

    const res = await rotate(manager.token, bot.uid, { overlap_seconds: 0 });
    expect(res.status).toBe(200);
    await api.ctx.db.runText('MATCH (d:Delivery {webhook_id: $id}) SET d.next_attempt_at = datetime()', {
      id: pending!.webhook_id,
    });
    const retry = await nthRequest(receiver, 2);
    expect(retry.webhookId).toBe(first.webhookId);
    expect(verifiesWith(res.body.secret, retry)).toBe(true);
    expect(verifiesWith(old, retry)).toBe(false);
  });

  it('when rotating again during an overlap, then the newest two secrets sign and the oldest no longer does', async () => {
    const { bot, receiver } = await newBot();
    const first = receiver.secret!;
    const second = (await rotate(manager.token, bot.uid, { overlap_seconds: 3600 })).body.secret;
    const third = await rotate(manager.token, bot.uid, { overlap_seconds: 3600 });
    expect(third.status).toBe(200);

    await messageTo(api, manager, bot, 'two of three');
    const got = await nthRequest(receiver, 1);
    expect(got.signature.split(' ')).toHaveLength(2);
    expect(verifiesWith(third.body.secret, got)).toBe(true);
    expect(verifiesWith(second, got)).toBe(true);
    expect(verifiesWith(first, got)).toBe(false);
  });

  it('when the endpoint is verified again after a rotation, then its new secret alone signs', async () => {
    const { bot, receiver } = await newBot();
    const rotated = (await rotate(manager.token, bot.uid, { overlap_seconds: 3600 })).body.secret;
    await verifyEndpoint(api, bot.token, receiver);
    await messageTo(api, manager, bot, 'after verifying again');
    const got = await nthRequest(receiver, 1);
    expect(got.signature.split(' ')).toHaveLength(1);
    expect(verifiesWith(receiver.secret!, got)).toBe(true);
    expect(verifiesWith(rotated, got)).toBe(false);
  });

  it('when the secret is rotated, then it appears in no later answer and in no log line', async () => {
    const { bot, receiver } = await newBot();
    const old = receiver.secret!;
    const res = await rotate(manager.token, bot.uid, { overlap_seconds: 3600 });
    expect(res.status).toBe(200);
    const secret = res.body.secret;
    await messageTo(api, manager, bot, 'where is the secret');
    await logOf(bot, (d) => d[0]?.state === 'delivered');

    const answers = [
      await readDeliveries(api, manager.token, bot.uid),
      await readDeliveries(api, bot.token, bot.uid),
      await api.graphql(
        `query ($uid: String!) { deliveries(uid: $uid) { deliveries { webhook_id url state log { error } } } }`,
        { uid: bot.uid },
        { token: manager.token },
      ),
      await api.request('GET', '/v1/auth/session', { token: bot.token }),
      await api.request('GET', '/v1/notifications', { token: bot.token }),
      // A later rotation shows its own secret only.
      await rotate(manager.token, bot.uid, { overlap_seconds: 60 }),
    ];
    const key = (whsec: string) => whsec.slice('whsec_'.length);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = JSON.stringify(answer.body);
      expect(text).not.toContain(key(secret));
      expect(text).not.toContain(key(old));
    }
    expect(logLines.some((line) => line.includes('webhook signing secret rotated'))).toBe(true);
    for (const line of logLines) {
      expect(line).not.toContain(key(secret));
      expect(line).not.toContain(key(old));
    }
  });

  it('when the bot itself rotates (a delegated session), then it may, as it may read its log', async () => {
    const { bot } = await newBot();
    const res = await rotate(bot.token, bot.uid, { overlap_seconds: 0 });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
  });

  it('when a stranger or another bot of the same manager rotates, then 403 not_manager, the same for a uid that does not exist, and the secret is unchanged', async () => {
    const { bot, receiver } = await newBot();
    const { bot: sibling } = await newBot();
    const stranger = await registerUser(api);
    for (const token of [stranger.token, sibling.token]) {
      const res = await rotate(token, bot.uid, { overlap_seconds: 0 });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'You do not manage that user.', code: 'not_manager' });
    }
    const missing = await rotate(stranger.token, '00000000');
    expect(missing.status).toBe(403);
    expect((missing.body as unknown as { code: string }).code).toBe('not_manager');

    await messageTo(api, manager, bot, 'still the first secret');
    const got = await nthRequest(receiver, 1);
    expect(got.signature.split(' ')).toHaveLength(1);
    expect(got.verified).toBe(true);
  });

  it('when the user has no endpoint, then 404 endpoint_not_found', async () => {
    const plain = await createManaged(api, manager.token, { is_bot: true });
    const res = await rotate(manager.token, plain.uid);
    expect(res.status).toBe(404);
    expect((res.body as unknown as { code: string }).code).toBe('endpoint_not_found');
  });

  it('when not signed in, then 401', async () => {
    const res = await api.request('POST', `/v1/managed/users/${manager.uid}/endpoint/secret/rotate`, {
      body: {},
    });
    expect(res.status).toBe(401);
  });

  it.each([
    [{ overlap_seconds: -1 }],
    [{ overlap_seconds: 604_801 }],
    [{ overlap_seconds: 1.5 }],
    [{ overlap_seconds: '60' }],
    [{ overlap_seconds: null }],
  ])('when the body is %j, then 422 naming overlap_seconds', async (body) => {
    const { bot } = await newBot();
    const res = await api.request<{ code: string; detail: { loc: string[] }[] }>(
      'POST',
      `/v1/managed/users/${bot.uid}/endpoint/secret/rotate`,
      { token: manager.token, body },
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.detail[0]!.loc).toEqual(['body', 'overlap_seconds']);
  });

  it('when the uid is not 8 hex characters, then 422', async () => {
    const res = await api.request<{ detail: { loc: string[] }[] }>(
      'POST',
      '/v1/managed/users/NOT-A-UID/endpoint/secret/rotate',
      { token: manager.token, body: {} },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]!.loc).toEqual(['path', 'uid']);
  });
});

describe('POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver', () => {
  it('when a failed delivery is redelivered, then the receiver gets it again with the same webhook-id and body, and the log shows the new attempt', async () => {
    const { bot, receiver } = await newBot();
    const { delivery: failed } = await failedDelivery(bot, receiver, 'second chance');
    const before = receiver.received.filter((r) => r.webhookId === failed.webhook_id);

    const res = await redeliver(manager.token, bot.uid, failed.webhook_id);
    expect(res.status).toBe(200);
    // The delivery as the log shows it, queued again.
    expect(res.body).toMatchObject({
      webhook_id: failed.webhook_id,
      state: 'pending',
      attempts: 10,
      delivered_at: null,
      event: failed.event,
    });
    expect(res.body.next_attempt_at).not.toBeNull();

    const got = await receiver.waitFor(
      (r) => r.filter((x) => x.webhookId === failed.webhook_id).length > before.length,
    );
    const again = got.filter((x) => x.webhookId === failed.webhook_id).at(-1)!;
    expect(again.verified).toBe(true);
    expect(again.body).toBe(before.at(-1)!.body);

    const [delivered] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivered).toMatchObject({
      webhook_id: failed.webhook_id,
      attempts: 11,
      last_status: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(delivered!.log.map((a) => a.attempt)).toEqual([1, 10, 11]);
    expect(delivered!.log.at(-1)).toMatchObject({ attempt: 11, status: 200, error: null });
  });

  it('when a redelivery fails, then it is one attempt: the delivery is failed again, with no retry scheduled', async () => {
    const { bot, receiver } = await newBot();
    const { delivery: failed } = await failedDelivery(bot, receiver, 'still broken');
    receiver.answer({ status: 500, body: 'still down' });
    expect((await redeliver(manager.token, bot.uid, failed.webhook_id)).status).toBe(200);

    const [again] = await logOf(bot, (d) => d[0]?.attempts === 11);
    expect(again).toMatchObject({ state: 'failed', next_attempt_at: null, delivered_at: null });
    // It may be asked for again.
    expect((await redeliver(manager.token, bot.uid, failed.webhook_id)).status).toBe(200);
    const [third] = await logOf(bot, (d) => d[0]?.attempts === 12);
    expect(third).toMatchObject({ state: 'delivered', last_status: 200 });
  });

  it('when the message was deleted after the delivery failed, then the redelivery sends nothing and the log shows it dropped', async () => {
    const { bot, receiver } = await newBot();
    const { delivery: failed, messageId } = await failedDelivery(
      bot,
      receiver,
      'deleted since qzredeliverword',
    );
    const sent = receiver.received.length;
    const deleted = await api.request('DELETE', `/v1/messages/${messageId}`, { token: manager.token });
    expect(deleted.status).toBe(200);

    const res = await redeliver(manager.token, bot.uid, failed.webhook_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ webhook_id: failed.webhook_id, state: 'pending', event: null });
    expect(JSON.stringify(res.body)).not.toContain('qzredeliverword');

    const [dropped] = await logOf(bot, (d) => d[0]?.state === 'dropped');
    expect(dropped).toMatchObject({ attempts: 11, last_status: null, event: null, next_attempt_at: null });
    expect(dropped!.last_error).toMatch(/nothing was sent/i);
    expect(dropped!.log.at(-1)).toMatchObject({ attempt: 11, status: null });
    expect(JSON.stringify(dropped)).not.toContain('qzredeliverword');
    expect(receiver.received).toHaveLength(sent);
  });

  it('when the bot was removed from the message, then the redelivery is dropped as well', async () => {
    const { bot, receiver } = await newBot();
    const { delivery: failed, messageId } = await failedDelivery(bot, receiver, 'hidden since qzhiddenagain');
    const sent = receiver.received.length;
    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: manager.token,
      body: { message_id: messageId, recipient_uid: bot.uid },
    });
    expect(removed.status).toBe(200);
    expect((await redeliver(manager.token, bot.uid, failed.webhook_id)).status).toBe(200);
    const [dropped] = await logOf(bot, (d) => d[0]?.state === 'dropped');
    expect(dropped!.event).toBeNull();
    expect(receiver.received).toHaveLength(sent);
  });

  it('when a dropped delivery is redelivered and still has nothing to show, then it is dropped again', async () => {
    const { bot, receiver } = await newBot();
    const { delivery: failed, messageId } = await failedDelivery(bot, receiver, 'dropped twice');
    await api.request('DELETE', `/v1/messages/${messageId}`, { token: manager.token });
    await redeliver(manager.token, bot.uid, failed.webhook_id);
    await logOf(bot, (d) => d[0]?.state === 'dropped');
    expect((await redeliver(manager.token, bot.uid, failed.webhook_id)).status).toBe(200);
    const [again] = await logOf(bot, (d) => d[0]?.attempts === 12);
    expect(again!.state).toBe('dropped');
  });

  it('when the bot was deactivated after the delivery failed, then redelivery is refused with 409 and nothing is sent', async () => {
    const { bot, receiver } = await newBot();
    const { delivery: failed } = await failedDelivery(bot, receiver, 'to a sleeping bot');
    const sent = receiver.received.length;
    const off = await api.request('POST', `/v1/managed/users/${bot.uid}/deactivate`, {
      token: manager.token,
    });
    expect(off.status).toBe(200);
    const refused = await redeliver(manager.token, bot.uid, failed.webhook_id);
    expect(refused.status).toBe(409);
    expect((refused.body as unknown as { code: string }).code).toBe('endpoint_disabled');
    expect(receiver.received).toHaveLength(sent);
  });

  it('when the delivery was delivered or is pending, then 409 delivery_not_redeliverable', async () => {
    const { bot, receiver } = await newBot();
    await messageTo(api, manager, bot, 'arrived');
    const [delivered] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    const again = await redeliver(manager.token, bot.uid, delivered!.webhook_id);
    expect(again.status).toBe(409);
    expect((again.body as unknown as { code: string }).code).toBe('delivery_not_redeliverable');

    // Its retry an hour away: pending.
    receiver.answer({ status: 429, headers: { 'retry-after': '3600' } });
    await messageTo(api, manager, bot, 'waiting');
    const [pending] = await logOf(bot, (d) => d.length === 2 && d[0]!.attempts === 1);
    expect(pending!.state).toBe('pending');
    const queued = await redeliver(manager.token, bot.uid, pending!.webhook_id);
    expect(queued.status).toBe(409);
    expect(queued.body).toEqual({
      detail: 'The delivery is pending: its next attempt is queued already.',
      code: 'delivery_not_redeliverable',
    });
  });

  it('when the endpoint answered 410, then redelivery is refused with 409 endpoint_disabled until the endpoint is verified again, and then it arrives with the same webhook-id', async () => {
    const { bot, receiver } = await newBot();
    receiver.answer({ status: 410 });
    await messageTo(api, manager, bot, 'gone for now');
    const [disabled] = await logOf(bot, (d) => d[0]?.state === 'disabled');

    const refused = await redeliver(manager.token, bot.uid, disabled!.webhook_id);
    expect(refused.status).toBe(409);
    expect((refused.body as unknown as { code: string }).code).toBe('endpoint_disabled');
    const rotation = await rotate(manager.token, bot.uid);
    expect(rotation.status).toBe(409);
    expect((rotation.body as unknown as { code: string }).code).toBe('endpoint_disabled');

    await verifyEndpoint(api, bot.token, receiver);
    expect((await redeliver(manager.token, bot.uid, disabled!.webhook_id)).status).toBe(200);
    const [delivered] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivered).toMatchObject({ webhook_id: disabled!.webhook_id, attempts: 2 });
    const last = receiver.received.at(-1)!;
    expect(last.webhookId).toBe(disabled!.webhook_id);
    expect(last.verified).toBe(true);
  });

  it('when the bot itself asks, then it may; a stranger or another bot gets 403 not_manager', async () => {
    const { bot, receiver } = await newBot();
    const { bot: sibling } = await newBot();
    const { delivery: failed } = await failedDelivery(bot, receiver, 'whose is it');
    const stranger = await registerUser(api);
    for (const token of [stranger.token, sibling.token]) {
      const res = await redeliver(token, bot.uid, failed.webhook_id);
      expect(res.status).toBe(403);
      expect((res.body as unknown as { code: string }).code).toBe('not_manager');
    }
    const own = await redeliver(bot.token, bot.uid, failed.webhook_id);
    expect(own.status).toBe(200);
    await logOf(bot, (d) => d[0]?.state === 'delivered');
  });

  it('when the webhook_id is unknown, or another user’s, then 404 delivery_not_found', async () => {
    const { bot, receiver } = await newBot();
    const { bot: other } = await newBot();
    await messageTo(api, manager, bot, 'mine');
    const [delivery] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(receiver.received).toHaveLength(1);

    const unknown = await redeliver(manager.token, bot.uid, `msg_${'0'.repeat(32)}_${bot.uid}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      detail: 'The user has no delivery with that webhook_id.',
      code: 'delivery_not_found',
    });
    // A delivery of another user, asked for under a uid the caller manages: not found there.
    const elsewhere = await redeliver(manager.token, other.uid, delivery!.webhook_id);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual(unknown.body);
  });

  it.each([['nope'], [`msg_${'0'.repeat(31)}_00000000`], [`msg_${'A'.repeat(32)}_00000000`]])(
    'when the webhook_id is %s, then 422 naming it',
    async (webhookId) => {
      const res = await api.request<{ code: string; detail: { loc: string[] }[] }>(
        'POST',
        `/v1/managed/users/${manager.uid}/deliveries/${webhookId}/redeliver`,
        { token: manager.token },
      );
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.detail[0]!.loc).toEqual(['path', 'webhook_id']);
    },
  );

  it('when not signed in, then 401', async () => {
    const res = await api.request(
      'POST',
      `/v1/managed/users/${manager.uid}/deliveries/msg_${'0'.repeat(32)}_${manager.uid}/redeliver`,
    );
    expect(res.status).toBe(401);
  });
});

describe('GraphQL', () => {
  const ROTATE = `mutation ($uid: String!, $overlap: Int) {
    rotateEndpointSecret(uid: $uid, overlap_seconds: $overlap) { secret previous_expires_at }
  }`;
  const REDELIVER = `mutation ($uid: String!, $webhook_id: String!) {
    redeliver(uid: $uid, webhook_id: $webhook_id) { webhook_id state attempts event { type } }
  }`;

  it('when the manager rotates through Mutation.rotateEndpointSecret, then the same answer as REST, and deliveries carry both signatures', async () => {
    const { bot, receiver } = await newBot();
    const old = receiver.secret!;
    const res = await api.graphql<{ rotateEndpointSecret: Rotated }>(
      ROTATE,
      { uid: bot.uid },
      { token: manager.token },
    );
    expect(res.body.errors).toBeUndefined();
    const rotated = res.body.data!.rotateEndpointSecret;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(secondsFromNow(rotated.previous_expires_at)).toBeGreaterThan(86_400 - 60);

    await messageTo(api, manager, bot, 'rotated through graphql');
    const got = await nthRequest(receiver, 1);
    expect(verifiesWith(rotated.secret, got) && verifiesWith(old, got)).toBe(true);
  });

  it('when a stranger rotates, or the overlap is out of range, then the error carries its code and status', async () => {
    const { bot } = await newBot();
    const stranger = await registerUser(api);
    const refused = await api.graphql(ROTATE, { uid: bot.uid }, { token: stranger.token });
    expect(refused.body.errors![0]!.extensions).toMatchObject({ code: 'not_manager', status: 403 });
    const invalid = await api.graphql(ROTATE, { uid: bot.uid, overlap: -5 }, { token: manager.token });
    expect(invalid.body.errors![0]!.extensions).toMatchObject({ code: 'validation_error', status: 422 });
  });

  it('when the manager redelivers through Mutation.redeliver, then the delivery is queued and arrives with the same webhook-id', async () => {
    const { bot, receiver } = await newBot();
    const { delivery: failed } = await failedDelivery(bot, receiver, 'again through graphql');
    const res = await api.graphql<{ redeliver: Delivery }>(
      REDELIVER,
      { uid: bot.uid, webhook_id: failed.webhook_id },
      { token: manager.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.redeliver).toEqual({
      webhook_id: failed.webhook_id,
      state: 'pending',
      attempts: 10,
      event: { type: 'sent' },
    });
    const [delivered] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivered!.attempts).toBe(11);
    expect(receiver.received.at(-1)!.webhookId).toBe(failed.webhook_id);
  });

  it('when the delivery is unknown or the webhook_id malformed, then delivery_not_found 404 or validation_error 422', async () => {
    const { bot } = await newBot();
    const unknown = await api.graphql(
      REDELIVER,
      { uid: bot.uid, webhook_id: `msg_${'0'.repeat(32)}_${bot.uid}` },
      { token: manager.token },
    );
    expect(unknown.body.errors![0]!.extensions).toMatchObject({ code: 'delivery_not_found', status: 404 });
    const malformed = await api.graphql(
      REDELIVER,
      { uid: bot.uid, webhook_id: 'msg_x' },
      { token: manager.token },
    );
    expect(malformed.body.errors![0]!.extensions).toMatchObject({ code: 'validation_error', status: 422 });
  });
});
