// The TypeScript SDK's `message.context()` (issue 41 item 3) against a real Skein in the test
// process: the handler reads the conversation a message belongs to, as the bot may see it, with one
// call that is kept per message; with `includeContext` the socket frame (or the webhook delivery,
// whose endpoint option registerEndpoint() turns on) already carries it and no call is made. Also
// the client's messageContext() and setEndpointOptions().
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SkeinBot,
  SkeinClient,
  SkeinError,
  type BotLogger,
  type BotMessage,
  type BotOptions,
  type ConversationContext,
} from '../../sdks/typescript/src/index.js';
import { createManaged, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: true });
});
afterAll(async () => {
  await api.close();
});

interface BotAccount {
  uid: string;
  tag: string;
  token: string;
}

async function botOf(manager: TestUser): Promise<BotAccount> {
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expect(delegated.status).toBe(200);
  return { uid: bot.uid, tag: bot.user_tag, token: delegated.body.access_token };
}

function recordingLogger(): BotLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => void lines.push(message),
    warn: (message) => void lines.push(message),
    error: (message, error) => void lines.push(`${message} ${String(error)}`),
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

const clientOf = (token: string) => new SkeinClient({ baseUrl: api.url, token });

/** What a handler saw of one message: the message, and its context() read twice. */
interface Seen {
  message: BotMessage;
  first: ConversationContext;
  second: ConversationContext;
}

/** A handler that reads context() twice, replies "echo: …", then keeps what it got. */
function contextRecorder(seen: Seen[]) {
  return async (message: BotMessage, ctx: { reply(content: string): Promise<unknown> }) => {
    const first = await message.context();
    const second = await message.context();
    await ctx.reply(`echo: ${message.content}`);
    seen.push({ message, first, second });
  };
}

describe('message.context() over the socket', () => {
  it('when the handler asks for the context, then it gets the conversation as the bot sees it (roles included), read once and kept for the message', async () => {
    const alice = await registerWriter(api);
    const account = await botOf(alice);
    const logger = recordingLogger();
    const seen: Seen[] = [];
    const bot = botFor(account, logger).onMessage(contextRecorder(seen));
    const running = bot.start();
    try {
      await waitUntil(() => logger.lines.some((line) => line.startsWith('connected')), 'the bot to connect');
      const alices = clientOf(alice.token);
      const root = await alices.post({ content: 'what is 2 + 2?', recipients: [`uid:${account.uid}`] });
      await waitUntil(() => seen.length === 1, 'the first message');
      const echo = (await alices.getMessage(root.id)).reply_ids[0]!;
      const followUp = await alices.post({
        content: 'and 3 + 3?',
        parent_id: echo,
        recipients: [`uid:${account.uid}`],
      });
      await waitUntil(() => seen.length === 2, 'the follow-up');

      const { message, first, second } = seen[1]!;
      expect(message.id).toBe(followUp.id);
      // The frame did not carry it (no includeContext): context() read it, once.
      expect(message.message_context).toBeUndefined();
      expect(second).toBe(first);
      expect(first).toEqual(await clientOf(account.token).messageContext(followUp.id));
      expect(first.entries.map((e) => [e.role, e.content])).toEqual([
        ['user', 'what is 2 + 2?'],
        ['assistant', 'echo: what is 2 + 2?'],
        ['user', 'and 3 + 3?'],
      ]);
      expect(first).toMatchObject({ message_id: followUp.id, truncated: false });
    } finally {
      await bot.stop();
      await running;
    }
  });

  it('when the bot runs with includeContext, then the frame carries each message’s context and context() answers it without a call', async () => {
    const alice = await registerWriter(api);
    const account = await botOf(alice);
    const logger = recordingLogger();
    const seen: Seen[] = [];
    const bot = botFor(account, logger, { includeContext: true }).onMessage(contextRecorder(seen));
    const running = bot.start();
    try {
      await waitUntil(() => logger.lines.some((line) => line.startsWith('connected')), 'the bot to connect');
      const posted = await clientOf(alice.token).post({
        content: 'carried along',
        recipients: [`uid:${account.uid}`],
      });
      await waitUntil(() => seen.length === 1, 'the message');
      const { message, first, second } = seen[0]!;
      expect(message.message_context).toBeDefined();
      expect(first).toBe(message.message_context);
      expect(second).toBe(first);
      expect(first).toEqual(await clientOf(account.token).messageContext(posted.id));
    } finally {
      await bot.stop();
      await running;
    }
  });
});

describe('message.context() behind a webhook endpoint', () => {
  let server: Server | undefined;
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('when registerEndpoint runs with includeContext, then the endpoint asks for contexts and the handler’s context() is the delivered one', async () => {
    const alice = await registerWriter(api);
    const account = await botOf(alice);
    const seen: Seen[] = [];
    const bot = botFor(account, recordingLogger(), { includeContext: true }).onMessage(contextRecorder(seen));
    server = createServer(bot.webhook()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/skein`;
    try {
      await bot.registerEndpoint(url);
      // The option is on for the endpoint (setting it again answers its state).
      const options = await clientOf(alice.token).setEndpointOptions(account.uid, { include_context: true });
      expect(options).toEqual({ url, include_context: true, enabled: true });

      const root = await clientOf(alice.token).post({
        content: 'by webhook, with context',
        recipients: [`uid:${account.uid}`],
      });
      await waitUntil(() => seen.length === 1, 'the delivery');
      const { message, first } = seen[0]!;
      expect(message.id).toBe(root.id);
      expect(message.message_context).toBeDefined();
      expect(first).toBe(message.message_context);
      expect(first.entries.map((e) => e.content)).toEqual(['by webhook, with context']);
    } finally {
      await bot.stop();
    }
  });
});

describe('SkeinClient: messageContext and setEndpointOptions', () => {
  it('when the context of a message is read with bounds, then limit and maxChars cut the oldest entries first and say so', async () => {
    const alice = await registerWriter(api);
    const bob = await registerWriter(api);
    const alices = clientOf(alice.token);
    let parent: string | undefined;
    for (const content of ['one', 'two', 'three']) {
      parent = (
        await alices.post({
          content,
          recipients: [`uid:${bob.uid}`],
          ...(parent ? { parent_id: parent } : {}),
        })
      ).id;
    }
    const bounded = await clientOf(bob.token).messageContext(parent!, { limit: 2 });
    expect(bounded.entries.map((e) => e.content)).toEqual(['two', 'three']);
    expect(bounded.truncated).toBe(true);
    const byChars = await clientOf(bob.token).messageContext(parent!, { maxChars: 5 });
    expect(byChars.entries.map((e) => e.content)).toEqual(['three']);
  });

  it('when a user asks for the context of a message it cannot see, or sets the options of a bot it does not manage, then SkeinError 404 and 403', async () => {
    const [alice, stranger] = [await registerWriter(api), await registerWriter(api)];
    const hidden = await clientOf(alice.token).post({ content: 'only mine' });
    await expect(clientOf(stranger.token).messageContext(hidden.id)).rejects.toMatchObject({
      status: 404,
      code: 'message_not_found',
    });
    const account = await botOf(alice);
    const refused = clientOf(stranger.token).setEndpointOptions(account.uid, { include_context: true });
    await expect(refused).rejects.toBeInstanceOf(SkeinError);
    await expect(refused).rejects.toMatchObject({ status: 403, code: 'not_manager' });
  });
});

async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
