// Webhook deliveries that carry each new message's conversation context (issue 41 item 3, decision
// 028): PATCH /v1/managed/users/{uid}/endpoint {include_context} (and GraphQL setEndpointOptions)
// turns it on for a bot's endpoint; each delivered message then carries `message_context`, exactly
// what GET /v1/messages/{id}/context answers the bot, and never anything the bot may not see. Off by
// default, and off again, the body is the spec's payload without it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createManaged, postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  botWithEndpoint,
  messageTo,
  verifyEndpoint,
  waitForDeliveries,
  type Bot,
} from './webhook-helpers.js';

interface DeliveredMessage {
  id: string;
  content: string;
  message_context?: { message_id: string; entries: { id: string; content: string }[]; truncated: boolean };
}

interface DeliveredBody {
  type: string;
  recipient_uid: string;
  content: { messages: DeliveredMessage[]; context: { id: string }[] };
}

let api: TestServer;
let manager: TestUser;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  // The server's dispatcher claims only the deliveries of bots made through it (this file's).
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: true });
  manager = await registerWriter(api);
});

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await api.close();
});

async function botWithReceiver(): Promise<{ bot: Bot; receiver: WebhookReceiver }> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  return { bot: await botWithEndpoint(api, manager, receiver), receiver };
}

function setOptions(token: string, uid: string, body: unknown) {
  return api.request<Record<string, unknown>>('PATCH', `/v1/managed/users/${uid}/endpoint`, { token, body });
}

async function includeContext(bot: Bot, on: boolean): Promise<void> {
  const res = await setOptions(manager.token, bot.uid, { include_context: on });
  expect(res.status).toBe(200);
}

/** The body of the delivery whose first message is `messageId`, once the receiver has it. */
async function deliveredFor(receiver: WebhookReceiver, messageId: string): Promise<DeliveredBody> {
  const bodyOf = (body: string) => JSON.parse(body) as DeliveredBody;
  const received = await receiver.waitFor(
    (all) => all.some((r) => bodyOf(r.body).content.messages.some((m) => m.id === messageId)),
    30_000,
    `the delivery of ${messageId}`,
  );
  const found = received.find((r) => bodyOf(r.body).content.messages.some((m) => m.id === messageId))!;
  expect(found.verified).toBe(true);
  return bodyOf(found.body);
}

function contextAs(token: string, messageId: string) {
  return api.request<Record<string, unknown>>('GET', `/v1/messages/${messageId}/context`, { token });
}

describe('PATCH /v1/managed/users/{uid}/endpoint', () => {
  it('when the bot’s manager or the bot itself sets include_context, then the answer shows the endpoint with the option, and GraphQL sets it the same way', async () => {
    const { bot, receiver } = await botWithReceiver();
    const byManager = await setOptions(manager.token, bot.uid, { include_context: true });
    expect(byManager.status).toBe(200);
    expect(byManager.body).toEqual({ url: receiver.url, include_context: true, enabled: true });
    const byBot = await setOptions(bot.token, bot.uid, { include_context: false });
    expect(byBot.body).toEqual({ url: receiver.url, include_context: false, enabled: true });

    const res = await api.graphql<{ setEndpointOptions: Record<string, unknown> }>(
      `mutation ($uid: String!) { setEndpointOptions(uid: $uid, include_context: true) { url include_context enabled } }`,
      { uid: bot.uid },
      { token: manager.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.setEndpointOptions).toEqual({
      url: receiver.url,
      include_context: true,
      enabled: true,
    });
  });

  it('when someone who does not manage the bot sets the option, then 403 not_manager, and nothing changes', async () => {
    const { bot } = await botWithReceiver();
    const stranger = await registerWriter(api);
    const res = await setOptions(stranger.token, bot.uid, { include_context: true });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('not_manager');
    const unchanged = await setOptions(manager.token, bot.uid, { include_context: false });
    expect(unchanged.body.include_context).toBe(false);
  });

  it('when the bot has no verified endpoint, then 404 endpoint_not_found', async () => {
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const res = await setOptions(manager.token, bot.uid, { include_context: true });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('endpoint_not_found');
  });

  it('when include_context is missing, not a boolean, or comes with an unknown field, then 422', async () => {
    const { bot } = await botWithReceiver();
    for (const body of [{}, { include_context: 'yes' }, { include_context: true, extra: 1 }]) {
      const res = await setOptions(manager.token, bot.uid, body);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_error');
    }
  });
});

describe('a delivery with include_context', () => {
  it('when a message reaches a bot whose endpoint asks for contexts, then each message carries the context GET /v1/messages/{id}/context answers the bot, starting context included', async () => {
    const { bot, receiver } = await botWithReceiver();
    // The bot's standing instructions: a public root it may see, as its context origin.
    const origin = await postMessage(api, manager.token, { content: 'You are a helpful bot.', public: true });
    const set = await api.request('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: manager.token,
      body: { bot: { context_origin_id: origin.id } },
    });
    expect(set.status).toBe(200);
    await includeContext(bot, true);

    const root = await messageTo(api, manager, bot, 'first question');
    const second = await messageTo(api, manager, bot, 'a follow-up', { parent_id: root.id });
    const body = await deliveredFor(receiver, second.id);

    const read = await contextAs(bot.token, second.id);
    expect(read.status).toBe(200);
    expect(body.content.messages).toHaveLength(1);
    expect(body.content.messages[0]!.message_context).toEqual(read.body);
    expect(body.content.messages[0]!.message_context!.entries.map((e) => e.content)).toEqual([
      'You are a helpful bot.',
      'first question',
      'a follow-up',
    ]);
    // The rest of the payload is the spec's, unchanged.
    expect(body).toMatchObject({
      type: 'sent',
      recipient_uid: bot.uid,
      content: { context: [{ id: root.id }] },
    });
  });

  it('when the bot cannot see the parent of the message it gets, then the delivered context leaves the parent (and what is above it) out, as the bot’s own read does', async () => {
    const { bot, receiver } = await botWithReceiver();
    await includeContext(bot, true);
    const carol = await registerWriter(api);
    // A thread between the manager and carol that the bot is not a recipient of...
    const secretRoot = await postMessage(api, manager.token, {
      content: 'private plans for carol',
      recipients: [`uid:${carol.uid}`],
    });
    const secretReply = await postMessage(api, carol.token, {
      content: 'carol’s private answer',
      parent_id: secretRoot.id,
      recipients: [`uid:${manager.uid}`],
    });
    // ...and then a reply in it addressed to the bot alone.
    const toBot = await messageTo(api, manager, bot, 'bot, what do you think?', {
      parent_id: secretReply.id,
    });
    const body = await deliveredFor(receiver, toBot.id);

    const delivered = body.content.messages[0]!.message_context!;
    expect(delivered.entries.map((e) => e.id)).toEqual([toBot.id]);
    expect(delivered).toEqual((await contextAs(bot.token, toBot.id)).body);
    const raw = JSON.stringify(body);
    expect(raw).not.toContain('private plans');
    expect(raw).not.toContain('carol’s private answer');
    // The manager, who may see the whole thread, would read more: the context is the bot's, not theirs.
    const managers = (await contextAs(manager.token, toBot.id)).body as { entries: unknown[] };
    expect(managers.entries).toHaveLength(3);
  });

  it('when the option is off (the default) or turned off again, then deliveries carry no message_context', async () => {
    const { bot, receiver } = await botWithReceiver();
    const before = await messageTo(api, manager, bot, 'no context by default');
    const plain = await deliveredFor(receiver, before.id);
    expect(plain.content.messages[0]).not.toHaveProperty('message_context');

    await includeContext(bot, true);
    const during = await messageTo(api, manager, bot, 'with context');
    expect((await deliveredFor(receiver, during.id)).content.messages[0]).toHaveProperty('message_context');

    await includeContext(bot, false);
    const after = await messageTo(api, manager, bot, 'off again');
    const again = await deliveredFor(receiver, after.id);
    expect(again.content.messages[0]).not.toHaveProperty('message_context');
    expect(Object.keys(again.content.messages[0]!).sort()).toEqual(['author', 'content', 'id', 'parent_id']);
  });

  it('when the endpoint is verified again, then the option stays', async () => {
    const { bot, receiver } = await botWithReceiver();
    await includeContext(bot, true);
    await verifyEndpoint(api, bot.token, receiver);
    const message = await messageTo(api, manager, bot, 'after verifying again');
    expect((await deliveredFor(receiver, message.id)).content.messages[0]).toHaveProperty('message_context');
  });

  it('when the delivery log is read, then it shows the body without message_context', async () => {
    const { bot, receiver } = await botWithReceiver();
    await includeContext(bot, true);
    const message = await messageTo(api, manager, bot, 'logged');
    await deliveredFor(receiver, message.id);
    const [delivery] = await waitForDeliveries(
      api,
      manager.token,
      bot.uid,
      (d) => d[0]?.state === 'delivered',
    );
    const logged = delivery!.event as DeliveredBody;
    expect(logged.content.messages.map((m) => m.id)).toEqual([message.id]);
    expect(logged.content.messages[0]).not.toHaveProperty('message_context');
  });
});
