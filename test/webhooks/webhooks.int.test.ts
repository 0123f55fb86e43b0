// Webhook delivery end to end: a bot proves a real HTTP endpoint through the contacts API, messages
// reach it signed the Standard Webhooks way, and the endpoint's answers drive retries (500, redirect,
// time-out, refused address, 429 with Retry-After), 410 turns it off, and the schedule ends in
// `failed`. Deliveries are planned from the event log by the dispatchers, and each body is built at
// its attempt: a message deleted (or hidden from the bot) before then is not sent, and the delivery
// is `dropped`. Claims are exclusive between dispatchers, leases survive a crashed sender, and a
// service killed with SIGKILL while a retry is pending sends it after a restart with the same
// webhook-id.
//
// Every dispatcher of the test run that claims all users' deliveries lives in this file (servers
// elsewhere run without one; secret-rotation.int.test.ts runs one narrowed to its own users), and the
// tests here run one after another, so each test decides which dispatchers are running.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import {
  startWebhookDispatcher,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from '../../src/components/webhooks/webhook-dispatcher.js';
import {
  claimDueDeliveries,
  recordAttempt,
  type ClaimedDelivery,
} from '../../src/components/webhooks/webhooks-repository.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  botWithEndpoint,
  messageTo,
  planNow,
  readDeliveries,
  verifyEndpoint,
  waitForDeliveries,
  type Bot,
  type Delivery,
} from './webhook-helpers.js';

jest.setTimeout(120_000);

let api: TestServer;
let manager: TestUser;
/** The dispatchers running now; tests that need others stop these first. */
let running: WebhookDispatcher[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' });
  manager = await registerWriter(api);
  running = [startWebhookDispatcher(api.ctx)];
});

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await useDispatchers();
  await api.close();
});

async function newReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  return receiver;
}

/** Stops the running dispatchers and starts one per options object given. */
async function useDispatchers(
  ...options: (WebhookDispatcherOptions & { allowPrivate?: boolean })[]
): Promise<WebhookDispatcher[]> {
  for (const dispatcher of running) await dispatcher.stop();
  running = options.map(({ allowPrivate, ...rest }) =>
    startWebhookDispatcher(
      allowPrivate === false
        ? { ...api.ctx, config: { ...api.ctx.config, webhookAllowPrivate: false } }
        : api.ctx,
      rest,
    ),
  );
  return running;
}

/** The service's own dispatcher, with its default settings. */
const useDefaultDispatcher = () => useDispatchers({});

const logOf = (bot: Bot, predicate: (deliveries: Delivery[]) => boolean) =>
  waitForDeliveries(api, manager.token, bot.uid, predicate);

const ms = (iso: string | null) => Date.parse(iso!);

describe('a message to a bot with a verified endpoint', () => {
  it('when someone posts a reply with the bot as recipient, then the endpoint gets exactly the notification as JSON, with a valid Standard Webhooks signature', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    const root = await postMessage(api, manager.token, { content: 'a public root', public: true });
    const reply = await messageTo(api, manager, bot, 'hello, bot', { parent_id: root.id });

    const [got] = await receiver.waitFor((r) => r.length >= 1);
    const author = { uid: manager.uid, user_tag: manager.tag };
    expect(JSON.parse(got!.body)).toEqual({
      type: 'sent',
      recipient_uid: bot.uid,
      content: {
        messages: [{ id: reply.id, content: 'hello, bot', parent_id: root.id, author }],
        context: [{ id: root.id, content: 'a public root', parent_id: null, author }],
      },
    });
    expect(got!.contentType).toBe('application/json');
    // msg_<event id without dashes>_<recipient uid>
    expect(got!.webhookId).toMatch(new RegExp(`^msg_[0-9a-f]{32}_${bot.uid}$`));
    expect(got!.signature).toMatch(/^v1,/);
    expect(got!.verified).toBe(true);
    // The check is real: one changed byte of the body fails it.
    const headers = {
      'webhook-id': got!.webhookId,
      'webhook-timestamp': got!.timestamp,
      'webhook-signature': got!.signature,
    };
    expect(() => new Webhook(receiver.secret!).verify(`${got!.body} `, headers)).toThrow();

    const [delivery] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivery).toMatchObject({
      webhook_id: got!.webhookId,
      type: 'sent',
      url: receiver.url,
      attempts: 1,
      last_status: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(delivery!.event).toEqual(JSON.parse(got!.body));
    expect(ms(delivery!.delivered_at)).toBeGreaterThanOrEqual(ms(delivery!.created_at));
    expect(delivery!.log).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        url: receiver.url,
        status: 200,
        error: null,
        duration_ms: expect.any(Number),
      },
    ]);
  });

  it('when the bot is added to an existing message and pinged on it, then the endpoint gets an `added` and a `ping` notification', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    const message = await postMessage(api, manager.token, { content: 'added later' });
    const added = await api.request('POST', '/v1/recipients/add', {
      token: manager.token,
      body: { message_id: message.id, recipients: [`uid:${bot.uid}`] },
    });
    expect(added.status).toBe(200);
    await receiver.waitFor((r) => r.length >= 1);
    const pinged = await api.request('POST', `/v1/messages/${message.id}/ping`, {
      token: manager.token,
      body: { recipients: [`uid:${bot.uid}`] },
    });
    expect(pinged.status).toBe(200);

    const received = await receiver.waitFor((r) => r.length >= 2);
    expect(received.every((r) => r.webhookId.endsWith(`_${bot.uid}`))).toBe(true);
    const events = received.map(
      (r) => JSON.parse(r.body) as { type: string; content: { messages: { id: string }[] } },
    );
    expect(events.map((e) => e.type)).toEqual(['added', 'ping']);
    expect(events.map((e) => e.content.messages.map((m) => m.id))).toEqual([[message.id], [message.id]]);
    expect(new Set(received.map((r) => r.webhookId)).size).toBe(2);
    expect(received.every((r) => r.verified)).toBe(true);
  });

  it('when a message the bot got is tagged, then its endpoint gets nothing more: webhooks carry only the four spec types', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    const message = await messageTo(api, manager, bot, 'tag me later');
    await receiver.waitFor((r) => r.length >= 1);
    const tagged = await api.request('PATCH', `/v1/messages/${message.id}/tags`, {
      token: manager.token,
      body: { tags: ['later'] },
    });
    expect(tagged.status).toBe(200);
    // The bot's socket would hear message.updated; its endpoint does not. The next post is the marker.
    const updates = await api.request<{ notifications: { event: { type: string } }[] }>(
      'GET',
      '/v1/notifications',
      { token: bot.token },
    );
    expect(updates.body.notifications.map((n) => n.event.type)).toEqual(['sent', 'message.updated']);
    const marker = await messageTo(api, manager, bot, 'marker');
    const received = await receiver.waitFor((r) => r.length >= 2);
    const bodies = received.map(
      (r) => JSON.parse(r.body) as { type: string; content: { messages: { id: string }[] } },
    );
    expect(bodies.map((b) => [b.type, b.content.messages[0]!.id])).toEqual([
      ['sent', message.id],
      ['sent', marker.id],
    ]);
    const log = await logOf(bot, (d) => d.length === 2 && d.every((x) => x.state === 'delivered'));
    expect(log.map((d) => d.type)).toEqual(['sent', 'sent']);
  });

  it('when the bot writes a message itself, then its endpoint gets nothing for it', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    await postMessage(api, bot.token, { content: 'my own words', recipients: [`uid:${manager.uid}`] });
    const notes = await api.request<{ notifications: unknown[] }>('GET', '/v1/notifications', {
      token: bot.token,
    });
    expect(notes.status).toBe(200);
    expect(notes.body.notifications).toEqual([]);
    expect((await readDeliveries(api, manager.token, bot.uid)).body.deliveries).toEqual([]);
  });
});

describe('retries', () => {
  it('when the endpoint answers 500, then the retry comes after the 5 s step with the same webhook-id and body, freshly signed', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    receiver.answer({ status: 500, body: 'try again later' });
    await messageTo(api, manager, bot, 'retry me');

    const [first, second] = await receiver.waitFor((r) => r.length >= 2);
    expect(second!.webhookId).toBe(first!.webhookId);
    expect(second!.body).toBe(first!.body);
    expect(second!.verified && first!.verified).toBe(true);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(4_500);
    expect(second!.timestamp).not.toBe(first!.timestamp);
    expect(second!.signature).not.toBe(first!.signature);

    const [delivery] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivery).toMatchObject({ attempts: 2, last_status: 200, last_error: null });
    expect(delivery!.log.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [1, 500, 'HTTP 500: try again later'],
      [2, 200, null],
    ]);
  });

  it('when the endpoint answers with a redirect, then it is a failed attempt, the redirect is not followed, and the retry goes to the endpoint', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    receiver.answer({ status: 301, headers: { location: receiver.urlFor('/moved') } });
    await messageTo(api, manager, bot, 'redirected');

    const [first, second] = await receiver.waitFor((r) => r.length >= 2);
    expect(second!.webhookId).toBe(first!.webhookId);
    expect(receiver.otherRequests).toEqual([]);
    const [delivery] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivery!.log[0]).toMatchObject({ attempt: 1, status: 301 });
    expect(delivery!.log[0]!.error).toContain(receiver.urlFor('/moved'));
    expect(delivery!.log[1]).toMatchObject({ attempt: 2, status: 200, error: null });
  });

  it('when the endpoint answers 429 with a Retry-After beyond the next step, then the next attempt is set that far away', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    receiver.answer({ status: 429, headers: { 'retry-after': '40' } });
    await messageTo(api, manager, bot, 'slow down');

    const [delivery] = await logOf(bot, (d) => d[0]?.attempts === 1);
    expect(delivery).toMatchObject({ state: 'pending', last_status: 429 });
    // The schedule alone would say 5 s (±10%); the endpoint asked for 40.
    expect(ms(delivery!.next_attempt_at) - ms(delivery!.log[0]!.at)).toBeGreaterThanOrEqual(39_000);
    expect(ms(delivery!.next_attempt_at) - ms(delivery!.log[0]!.at)).toBeLessThan(60_000);
  });

  it('when the endpoint answers too slowly, then the attempt times out and is retried', async () => {
    // Its settings are this test's: other files' deliveries are left to the other dispatchers.
    const only = new Set<string>();
    await useDispatchers({ timeoutMs: 1_000, pollMs: 200, onlyUids: only });
    try {
      const receiver = await newReceiver();
      const bot = await botWithEndpoint(api, manager, receiver);
      only.add(bot.uid);
      receiver.answer({ status: 200, delayMs: 4_000 });
      await messageTo(api, manager, bot, 'take your time');

      const [delivery] = await logOf(bot, (d) => d[0]?.state === 'delivered');
      expect(delivery!.attempts).toBe(2);
      expect(delivery!.log[0]).toMatchObject({
        attempt: 1,
        status: null,
        error: 'No answer within 1000 ms.',
      });
      expect(receiver.received.map((r) => r.webhookId)).toEqual([delivery!.webhook_id, delivery!.webhook_id]);
    } finally {
      await useDefaultDispatcher();
    }
  });

  it('when private addresses are not allowed, then an attempt to a loopback endpoint is refused and retried, and goes through once they are', async () => {
    const receiver = await newReceiver();
    // Verified while loopback targets are allowed (as in a development set-up).
    const bot = await botWithEndpoint(api, manager, receiver);
    // Its settings are this test's: other files' deliveries are left to the other dispatchers.
    await useDispatchers({ allowPrivate: false, pollMs: 200, onlyUids: new Set([bot.uid]) });
    try {
      await messageTo(api, manager, bot, 'to a private address');
      const [refused] = await logOf(bot, (d) => d[0]?.attempts === 1);
      expect(refused).toMatchObject({ state: 'pending', last_status: null });
      expect(refused!.last_error).toMatch(/^Refused: /);
      expect(receiver.received).toEqual([]);
    } finally {
      await useDefaultDispatcher();
    }
    const [delivered] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivered!.attempts).toBe(2);
    expect(receiver.received).toHaveLength(1);
  });

  it('when the tenth attempt fails, then the delivery has failed for good', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    receiver.answer({ status: 500 }, { status: 503 });
    await messageTo(api, manager, bot, 'doomed');
    const [first] = await logOf(bot, (d) => d[0]?.attempts === 1);

    // As if 66 hours of retries had failed: nine attempts made, the tenth due now.
    await api.ctx.db.runText(
      'MATCH (d:Delivery {webhook_id: $id}) SET d.attempts = 9, d.next_attempt_at = datetime()',
      { id: first!.webhook_id },
    );
    const [failed] = await logOf(bot, (d) => d[0]?.state !== 'pending');
    expect(failed).toMatchObject({ state: 'failed', attempts: 10, last_status: 503, next_attempt_at: null });
    expect(failed!.log.map((a) => a.attempt)).toEqual([1, 10]);
    expect(receiver.received).toHaveLength(2);
  });
});

describe('bodies built at each attempt', () => {
  it('when the message is deleted before a retry, then nothing more is sent, the delivery is dropped, and the log never shows the deleted content', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    // The retry is set ten minutes away, so the test decides when it falls due.
    receiver.answer({ status: 503, headers: { 'retry-after': '600' } });
    const message = await messageTo(api, manager, bot, 'regret this qzregretword');
    const [failed] = await logOf(bot, (d) => d[0]?.attempts === 1);
    expect(failed).toMatchObject({ state: 'pending', last_status: 503 });
    expect(failed!.event!.content.messages).toEqual([expect.objectContaining({ id: message.id })]);
    expect(receiver.received).toHaveLength(1);

    const deleted = await api.request('DELETE', `/v1/messages/${message.id}`, { token: manager.token });
    expect(deleted.status).toBe(200);
    // The log builds the event now: nothing of the deleted message, even before the retry.
    const [waiting] = await logOf(bot, () => true);
    expect(waiting).toMatchObject({ webhook_id: failed!.webhook_id, state: 'pending', event: null });
    expect(JSON.stringify(waiting)).not.toContain('qzregretword');

    // The retry falls due now.
    await api.ctx.db.runText('MATCH (d:Delivery {webhook_id: $id}) SET d.next_attempt_at = datetime()', {
      id: failed!.webhook_id,
    });
    const [dropped] = await logOf(bot, (d) => d[0]?.state !== 'pending');
    expect(dropped).toMatchObject({
      webhook_id: failed!.webhook_id,
      state: 'dropped',
      attempts: 2,
      last_status: null,
      next_attempt_at: null,
      delivered_at: null,
      event: null,
    });
    expect(dropped!.last_error).toMatch(/nothing was sent/i);
    expect(dropped!.log.map((a) => [a.attempt, a.status])).toEqual([
      [1, 503],
      [2, null],
    ]);
    expect(dropped!.log[1]!.error).toMatch(/nothing was sent/i);
    expect(JSON.stringify(dropped)).not.toContain('qzregretword');
    expect(receiver.received).toHaveLength(1);
  });

  it('when the message is deleted, or the bot removed from it, before the first attempt, then nothing is sent and both deliveries are dropped', async () => {
    // No dispatcher plans or sends while the messages change.
    await useDispatchers();
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    try {
      const gone = await messageTo(api, manager, bot, 'gone before sending qzgonesend');
      const hidden = await messageTo(api, manager, bot, 'hidden before sending qzhiddensend');
      await messageTo(api, manager, bot, 'kept');
      expect((await api.request('DELETE', `/v1/messages/${gone.id}`, { token: manager.token })).status).toBe(
        200,
      );
      const removed = await api.request('DELETE', '/v1/recipients/remove', {
        token: manager.token,
        body: { message_id: hidden.id, recipient_uid: bot.uid },
      });
      expect(removed.status).toBe(200);
    } finally {
      await useDefaultDispatcher();
    }
    const settled = await logOf(bot, (d) => d.length === 3 && d.every((x) => x.state !== 'pending'));
    expect(settled.map((d) => d.state)).toEqual(['delivered', 'dropped', 'dropped']);
    expect(settled.map((d) => d.attempts)).toEqual([1, 1, 1]);
    expect(receiver.received).toHaveLength(1);
    const body = JSON.parse(receiver.received[0]!.body) as { content: { messages: { content: string }[] } };
    expect(body.content.messages.map((m) => m.content)).toEqual(['kept']);
    const text = JSON.stringify(settled);
    expect(text).not.toContain('qzgonesend');
    expect(text).not.toContain('qzhiddensend');
  });
});

describe('410 Gone', () => {
  it('when the endpoint answers 410, then it is turned off: pending deliveries stop, no new ones are made, and verifying again turns it back on', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    receiver.answer({ status: 500 }, { status: 410 });
    await messageTo(api, manager, bot, 'first');
    await messageTo(api, manager, bot, 'second');

    const both = await logOf(bot, (d) => d.length === 2 && d.every((x) => x.state === 'disabled'));
    expect(both.map((d) => d.next_attempt_at)).toEqual([null, null]);
    expect(both.map((d) => d.last_status).sort()).toEqual([410, 500]);
    expect(receiver.received).toHaveLength(2);

    // An event numbered now gets no delivery: the planner skips endpoints that are turned off.
    const third = await messageTo(api, manager, bot, 'third');
    const notes = await api.request<{
      notifications: { event: { content: { messages: { id: string }[] } } }[];
    }>('GET', '/v1/notifications', { token: bot.token });
    expect(notes.body.notifications.at(-1)!.event.content.messages[0]!.id).toBe(third.id);
    expect((await readDeliveries(api, manager.token, bot.uid)).body.deliveries).toHaveLength(2);

    await verifyEndpoint(api, bot.token, receiver);
    const fourth = await messageTo(api, manager, bot, 'fourth');
    // The third was recorded while the endpoint was off, so it is never delivered, however late the
    // planner reaches it.
    const deliveries = await logOf(bot, (d) => d.length === 3 && d[0]!.state === 'delivered');
    expect(deliveries[0]!.event!.content.messages).toEqual([expect.objectContaining({ id: fourth.id })]);
    expect(receiver.received.at(-1)!.verified).toBe(true);
  });
});

describe('claims and leases', () => {
  it('when two dispatchers race for many deliveries, then every delivery is sent exactly once', async () => {
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    const count = 40;
    await useDispatchers({ pollMs: 20, owner: 'racer-a' }, { pollMs: 20, owner: 'racer-b' });
    try {
      await Promise.all(Array.from({ length: count }, (_, i) => messageTo(api, manager, bot, `race ${i}`)));
      await logOf(bot, (d) => d.length === count && d.every((x) => x.state === 'delivered'));
    } finally {
      // Stopping waits for sends in flight, so no duplicate can still be on its way.
      await useDispatchers();
    }
    const ids = receiver.received.map((r) => r.webhookId);
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    await useDefaultDispatcher();
  });

  it('when many claimers claim at the same moment, then no delivery is claimed twice', async () => {
    await useDispatchers();
    try {
      const receiver = await newReceiver();
      const bot = await botWithEndpoint(api, manager, receiver);
      await Promise.all(Array.from({ length: 30 }, (_, i) => messageTo(api, manager, bot, `claim ${i}`)));
      // No dispatcher runs: plan the deliveries as one would, then claim them.
      await planNow(api);
      const mine = await readDeliveries(api, manager.token, bot.uid, '?limit=100');
      expect(mine.body.deliveries).toHaveLength(30);
      // Narrowed to this bot, so that the claimers lease none of the other files' deliveries in the
      // shared store.
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          claimDueDeliveries(api.ctx.db, {
            owner: `claimer-${i}`,
            leaseToken: `token-${i}`,
            limit: 500,
            leaseMs: 60_000,
            onlyUids: [bot.uid],
          }),
        ),
      );
      const ids = new Set(mine.body.deliveries.map((d) => d.webhook_id));
      const claimed = claims.flat().filter((c) => ids.has(c.webhook_id));
      // Each of the thirty is claimed once, by one of the six.
      expect(claimed.map((c) => c.webhook_id).sort()).toEqual([...ids].sort());
      // Leave nothing leased: give every claimed delivery back to the schedule.
      await releaseClaims(claims.flat());
    } finally {
      await useDefaultDispatcher();
    }
  });

  it('when a sender crashed mid-send, then its lease holds the delivery until it runs out, the delivery is sent again with the same webhook-id, and the crashed sender’s late result is ignored', async () => {
    await useDispatchers();
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    await messageTo(api, manager, bot, 'crash mid-send');
    await planNow(api);
    const [pending] = await logOf(bot, (d) => d.length === 1);
    const claims = await claimDueDeliveries(api.ctx.db, {
      owner: 'doomed',
      leaseToken: 'doomed-lease',
      limit: 500,
      leaseMs: 60_000,
      onlyUids: [bot.uid],
    });
    const claimed = claims.find((c) => c.webhook_id === pending!.webhook_id);
    expect(claimed).toBeDefined();
    await releaseClaims(claims.filter((c) => c !== claimed));
    // The crashed claimer's lease has three seconds left.
    const rows = await api.ctx.db.runText(
      `MATCH (d:Delivery {webhook_id: $id})
       SET d.lease_until = datetime() + duration({seconds: 3})
       RETURN toString(d.lease_until) AS until`,
      { id: pending!.webhook_id },
    );
    const leaseUntil = Date.parse(rows[0]!.until as string);
    await useDispatchers({ pollMs: 100 });
    try {
      const [got] = await receiver.waitFor((r) => r.length >= 1);
      expect(got!.webhookId).toBe(pending!.webhook_id);
      expect(got!.receivedAt).toBeGreaterThanOrEqual(leaseUntil - 50);
      await logOf(bot, (d) => d[0]?.state === 'delivered');
      const late = await recordAttempt(api.ctx.db, {
        webhook_id: claimed!.webhook_id,
        uid: bot.uid,
        url: claimed!.url,
        lease_token: 'doomed-lease',
        claimed_at: claimed!.claimed_at,
        state: 'disabled',
        status: 410,
        error: 'HTTP 410',
        delay_ms: 0,
        entry: {
          attempt: 1,
          at: new Date().toISOString(),
          url: claimed!.url,
          status: 410,
          error: 'HTTP 410',
          duration_ms: 1,
        },
      });
      expect(late).toBe(false);
      const [after] = await logOf(bot, () => true);
      expect(after).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200 });
    } finally {
      await useDefaultDispatcher();
    }
  });
});

/** Ends test leases at once, so the deliveries are due again. */
async function releaseClaims(claims: ClaimedDelivery[]): Promise<void> {
  await api.ctx.db.runText(
    `UNWIND $ids AS id MATCH (d:Delivery {webhook_id: id})
     REMOVE d.lease_token, d.lease_owner, d.lease_until`,
    { ids: claims.map((c) => c.webhook_id) },
  );
}

describe('a crash of the whole service', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'skein-webhook-crash-'));
  const services: ServiceProcess[] = [];

  afterAll(async () => {
    for (const service of services) {
      service.kill('SIGTERM');
      await service.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The whole service as its own process, on the run's Neo4j, with this file's data directory. */
  async function startService(): Promise<ServiceProcess> {
    const service = await startServiceProcess({
      NEO4J_URI: process.env.SKEIN_TEST_NEO4J_URI!,
      NEO4J_PASSWORD: process.env.SKEIN_TEST_NEO4J_PASSWORD!,
      PORT: String(await freePort()),
      SKEIN_DATA_DIR: dataDir,
      SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true',
      LOG_LEVEL: 'silent',
    });
    services.push(service);
    return service;
  }

  it('when the service is killed with SIGKILL while a retry is pending, then the restarted service sends the retry with the same webhook-id', async () => {
    await useDispatchers();
    const receiver = await newReceiver();
    const bot = await botWithEndpoint(api, manager, receiver);
    receiver.answer({ status: 500 });

    const first = await startService();
    const posted = await fetch(`${first.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${manager.token}` },
      body: JSON.stringify({ content: 'survive a crash', recipients: [`uid:${bot.uid}`] }),
    });
    expect(posted.status).toBe(200);
    const [failed] = await logOf(bot, (d) => d[0]?.attempts === 1);
    expect(failed).toMatchObject({ state: 'pending', last_status: 500 });
    first.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect(receiver.received).toHaveLength(1);

    const second = await startService();
    const [, retried] = await receiver.waitFor((r) => r.length >= 2);
    expect(retried!.webhookId).toBe(failed!.webhook_id);
    expect(retried!.verified).toBe(true);
    const [delivered] = await logOf(bot, (d) => d[0]?.state === 'delivered');
    expect(delivered).toMatchObject({ attempts: 2, last_status: 200 });
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
