// The TypeScript SDK's run loop (SkeinBot) against a real Skein in the test process: which events
// reach the handler (new messages and pings to the bot, never its own messages, not `added`), the
// reply's audience, the concurrency bound and the cursor it stores (only past events whose handlers
// all finished), a clean stop that waits for running handlers, a refusal that ends start(), and the
// same handler behind a webhook endpoint (verification, signatures, answered before it is handled).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  BotRefusedError,
  SkeinBot,
  SkeinClient,
  type BotLogger,
  type BotMessage,
  type BotOptions,
  type MessageOutput,
} from '../../sdks/typescript/src/index.js';
import { createManaged, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { waitForDeliveries } from '../webhooks/webhook-helpers.js';

let api: TestServer;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'skein-ts-bot-'));
beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: true });
});
afterAll(async () => {
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface BotAccount {
  uid: string;
  tag: string;
  /** A delegated session of the bot, as the README's Quickstart makes one. */
  token: string;
}

/** A bot managed by `manager`, with a delegated session. */
async function botOf(manager: TestUser): Promise<BotAccount> {
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expect(delegated.status).toBe(200);
  return { uid: bot.uid, tag: bot.user_tag, token: delegated.body.access_token };
}

/** A logger that keeps the lines, so a test can wait for "connected". */
function recordingLogger(): BotLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => void lines.push(message),
    warn: (message) => void lines.push(message),
    error: (message) => void lines.push(message),
  };
}

function botFor(account: BotAccount, logger: BotLogger, options: BotOptions = {}): SkeinBot {
  return new SkeinBot({
    url: api.url,
    token: account.token,
    logger,
    handleSignals: false,
    env: {},
    ...options,
  });
}

const clientOf = (user: TestUser) => new SkeinClient({ baseUrl: api.url, token: user.token });

/** A promise with its resolve function, to hold a handler until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('SkeinBot over the notification socket', () => {
  it('when messages and pings reach the bot, then the handler gets each once and its reply keeps the audience; its own messages and `added` events are not handed over', async () => {
    const [alice, carol] = [await registerWriter(api), await registerWriter(api)];
    const account = await botOf(alice);
    const logger = recordingLogger();
    const seen: { id: string; type: string }[] = [];
    const replies: MessageOutput[] = [];
    const botUids = new Set<string>();
    const bot = botFor(account, logger).onMessage(async (message, ctx) => {
      seen.push({ id: message.id, type: ctx.type });
      botUids.add(ctx.botUid);
      replies.push(await ctx.reply(`echo: ${message.content}`));
    });
    const running = bot.start();
    try {
      await waitUntil(() => logger.lines.some((line) => line.startsWith('connected')), 'the bot to connect');
      const alices = clientOf(alice);
      const first = await alices.post({
        content: 'hello bot',
        recipients: [`uid:${account.uid}`, `uid:${carol.uid}`],
      });
      await waitUntil(() => replies.length === 1, 'the reply to the first message');
      const [reply] = replies;
      expect(reply).toMatchObject({
        parent_id: first.id,
        content: 'echo: hello bot',
        author: { uid: account.uid },
      });
      // "audience": "parent": the author and the other recipient both see the reply.
      expect((await alices.getMessage(reply!.id)).content).toBe('echo: hello bot');
      expect((await clientOf(carol).getMessage(reply!.id)).content).toBe('echo: hello bot');

      // A ping on the bot's own reply carries the bot's own message: not handed over.
      const pinged = await api.request('POST', `/v1/messages/${reply!.id}/ping`, {
        token: alice.token,
        body: { recipients: [`uid:${account.uid}`] },
      });
      expect(pinged.status).toBe(200);
      // Added to an existing message: context only, not handed over by default.
      const earlier = await alices.post({ content: 'for carol', recipients: [`uid:${carol.uid}`] });
      const added = await api.request('POST', '/v1/recipients/add', {
        token: alice.token,
        body: { message_id: earlier.id, recipients: [`uid:${account.uid}`] },
      });
      expect(added.status).toBe(200);
      // A ping on someone else's message: handed over, as a ping.
      const pingedEarlier = await api.request('POST', `/v1/messages/${earlier.id}/ping`, {
        token: alice.token,
        body: { recipients: [`uid:${account.uid}`] },
      });
      expect(pingedEarlier.status).toBe(200);
      const last = await alices.post({ content: 'last one', recipients: [`uid:${account.uid}`] });
      await waitUntil(() => seen.some((s) => s.id === last.id) && replies.length === 3, 'the last message');
      await sleep(300); // a repeat, or a skipped event handed over late, would arrive now
      expect(seen).toEqual([
        { id: first.id, type: 'sent' },
        { id: earlier.id, type: 'ping' },
        { id: last.id, type: 'sent' },
      ]);
      expect([...botUids]).toEqual([account.uid]);
    } finally {
      await bot.stop();
      await running;
    }
  });

  it('when handlers are slow, then at most `concurrency` run, the cursor file moves only past events whose handlers all finished, and stop() waits for the running ones', async () => {
    const alice = await registerWriter(api);
    const account = await botOf(alice);
    const cursorFile = path.join(scratch, `${account.tag}.cursor`);
    const logger = recordingLogger();
    const gates = new Map<string, ReturnType<typeof gate>>();
    const started: string[] = [];
    const finished: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const bot = botFor(account, logger, { concurrency: 2, cursorFile }).onMessage(
      async (message: BotMessage) => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        started.push(message.content);
        const held = gate();
        gates.set(message.content, held);
        await held.promise;
        running -= 1;
        finished.push(message.content);
      },
    );
    let ended = false;
    const run = bot.start().then(() => (ended = true));
    await waitUntil(() => readCursor(cursorFile) !== undefined, 'the starting cursor in the file');
    const start = readCursor(cursorFile)!;

    const alices = clientOf(alice);
    for (const content of ['m1', 'm2', 'm3', 'm4']) {
      await alices.post({ content, recipients: [`uid:${account.uid}`] });
    }
    const page = await new SkeinClient({ baseUrl: api.url, token: account.token }).notifications({
      since: start,
    });
    const cursors = page.notifications.map((n) => n.cursor);
    expect(cursors).toHaveLength(4);

    await waitUntil(() => started.length === 2, 'two handlers to start');
    await sleep(500); // the other two events have arrived by now; they must wait for a slot
    expect(started).toEqual(['m1', 'm2']);

    // m2 finishes first: m1 still runs, so the stored cursor may not move past either.
    gates.get('m2')!.open();
    await waitUntil(() => finished.includes('m2') && started.length === 3, 'm2 to finish and m3 to start');
    await sleep(300); // a write of a cursor past m1 would have landed
    expect(readCursor(cursorFile)).toBe(start);

    gates.get('m1')!.open();
    await waitUntil(() => readCursor(cursorFile) === cursors[1], 'the cursor past m1 and m2');
    await waitUntil(() => started.length === 4, 'm4 to start');

    // A stop while m3 and m4 run: it waits for them, then stores the cursor past both.
    const stopping = bot.stop();
    await sleep(300);
    expect(ended).toBe(false);
    gates.get('m3')!.open();
    gates.get('m4')!.open();
    await stopping;
    await run;
    expect(ended).toBe(true);
    expect(mostAtOnce).toBe(2);
    expect(finished.sort()).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(readCursor(cursorFile)).toBe(cursors[3]);
  });

  it('when the bot restarts from its cursor file, then what came while it was stopped is handed over once and nothing earlier again', async () => {
    const alice = await registerWriter(api);
    const account = await botOf(alice);
    const cursorFile = path.join(scratch, `${account.tag}.cursor`);
    const seen: string[] = [];
    const firstRun = botFor(account, recordingLogger(), { cursorFile }).onMessage(
      (m) => void seen.push(m.content),
    );
    const first = firstRun.start();
    await waitUntil(() => readCursor(cursorFile) !== undefined, 'the starting cursor in the file');
    const alices = clientOf(alice);
    await alices.post({ content: 'before', recipients: [`uid:${account.uid}`] });
    await waitUntil(() => seen.length === 1, 'the first message');
    await firstRun.stop();
    await first;

    await alices.post({ content: 'while stopped', recipients: [`uid:${account.uid}`] });
    const secondRun = botFor(account, recordingLogger(), { cursorFile }).onMessage(
      (m) => void seen.push(m.content),
    );
    const second = secondRun.start();
    try {
      await waitUntil(() => seen.length >= 2, 'the message sent while the bot was stopped');
      await alices.post({ content: 'after', recipients: [`uid:${account.uid}`] });
      await waitUntil(() => seen.length >= 3, 'the message sent after the restart');
      await sleep(300);
      expect(seen).toEqual(['before', 'while stopped', 'after']);
    } finally {
      await secondRun.stop();
      await second;
    }
  });

  it('when the service refuses the credentials, then start() rejects with BotRefusedError', async () => {
    const bot = new SkeinBot({
      url: api.url,
      token: 'svc_session_0000000000000000.invalid',
      logger: false,
      handleSignals: false,
      env: {},
    }).onMessage(() => undefined);
    const failure = bot.start();
    await expect(failure).rejects.toBeInstanceOf(BotRefusedError);
    await expect(failure).rejects.toMatchObject({ refusal: { closeCode: 4401 } });
  });

  it('when no credentials are given, then start() says which variables to set', async () => {
    const bot = new SkeinBot({ url: api.url, logger: false, handleSignals: false, env: {} }).onMessage(
      () => undefined,
    );
    await expect(bot.start()).rejects.toThrow(/SKEIN_API_KEY.*SKEIN_TOKEN/);
  });
});

describe('SkeinBot behind a webhook endpoint', () => {
  let server: Server;
  let url: string;
  let bot: SkeinBot;
  let account: BotAccount;
  let alice: TestUser;
  const release = gate();
  const handled: string[] = [];
  const replies: MessageOutput[] = [];

  beforeAll(async () => {
    alice = await registerWriter(api);
    account = await botOf(alice);
    bot = botFor(account, recordingLogger()).onMessage(async (message, ctx) => {
      handled.push(message.id);
      await release.promise;
      replies.push(await ctx.reply(`echo: ${message.content}`));
    });
    server = createServer(bot.webhook()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/skein`;
  });
  afterAll(async () => {
    release.open();
    await bot.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('when the endpoint is verified and Skein delivers, then the delivery is answered before the handler finishes, and the reply keeps the audience', async () => {
    const secret = await bot.registerEndpoint(url);
    expect(secret).toMatch(/^whsec_/);
    const message = await clientOf(alice).post({ content: 'by webhook', recipients: [`uid:${account.uid}`] });
    await waitUntil(() => handled.includes(message.id), 'the handler to get the message');
    // The handler is still held, yet the delivery is already answered 200.
    const deliveries = await waitForDeliveries(api, alice.token, account.uid, (all) =>
      all.some((d) => d.state === 'delivered'),
    );
    expect(deliveries.find((d) => d.state === 'delivered')).toMatchObject({ last_status: 200, attempts: 1 });
    expect(replies).toHaveLength(0);
    release.open();
    await waitUntil(() => replies.length === 1, 'the reply');
    expect(replies[0]).toMatchObject({ parent_id: message.id, content: 'echo: by webhook' });
    expect((await clientOf(alice).getMessage(replies[0]!.id)).content).toBe('echo: by webhook');
    expect(handled).toEqual([message.id]);
  });

  it('when a request is not signed by Skein, then it is refused 401 and nothing is handled; a bare nonce is echoed', async () => {
    const before = handled.length;
    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body: JSON.stringify({
        type: 'sent',
        recipient_uid: account.uid,
        content: { messages: [], context: [] },
      }),
    });
    expect(forged.status).toBe(401);
    const nonce = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nonce: 'n0nce' }),
    });
    expect(nonce.status).toBe(200);
    expect(await nonce.json()).toEqual({ nonce: 'n0nce' });
    expect(handled).toHaveLength(before);
  });
});

function readCursor(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
