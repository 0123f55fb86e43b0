// The SDKs against a real Skein running in the test process (the run's Neo4j, webhooks dispatched
// to loopback): the TypeScript SDK's client, reply audience, resuming socket and webhook
// verification; then the Python SDK's pytest suite (sdks/python/tests) with this service's URL and
// the test admin's credentials in its environment.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import {
  MessageRejected,
  SkeinClient,
  SkeinError,
  SkeinSocket,
  verifyWebhook,
  WebhookVerificationError,
  type NotificationFrame,
} from '../../sdks/typescript/src/index.js';
import { registerWriter, STRONG_PASSWORD, uniqueTag, type TestUser } from '../support/factories.js';
import { pythonSdkVenv, runCommand } from '../support/python-venv.js';
import { startTestServer, TEST_ADMIN, type TestServer } from '../support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { botWithEndpoint, messageTo } from '../webhooks/webhook-helpers.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: true });
});
afterAll(async () => {
  await api.close();
});

const clientOf = (user: TestUser) => new SkeinClient({ baseUrl: api.url, token: user.token });

describe('TypeScript SDK: SkeinClient', () => {
  it('when a user registers, then the client uses the new session, and a wrong login throws SkeinError', async () => {
    const tag = uniqueTag();
    const client = new SkeinClient({ baseUrl: api.url });
    const tokens = await client.register({ user_tag: tag, password: STRONG_PASSWORD });
    expect(tokens.token_type).toBe('Bearer');
    expect((await client.me()).user_tag).toBe(tag);
    const stranger = new SkeinClient({ baseUrl: api.url });
    const wrong = stranger.login({ user_tag: tag, password: 'wrong-password-entirely' });
    await expect(wrong).rejects.toBeInstanceOf(SkeinError);
    await expect(wrong).rejects.toMatchObject({ status: 401 });
  });

  it('when a message is posted, then its recipient reads it with getMessage', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const posted = await clientOf(alice).post({ content: 'hello from ts', recipients: [`uid:${bob.uid}`] });
    const read = await clientOf(bob).getMessage(posted.id);
    expect(read).toMatchObject({ id: posted.id, content: 'hello from ts', author: { uid: alice.uid } });
  });

  it('when an item of the post fails, then post throws MessageRejected with its status', async () => {
    const alice = await registerWriter(api);
    const failure = clientOf(alice).post({ content: 'nobody', recipients: ['uid:00000000'] });
    await expect(failure).rejects.toBeInstanceOf(MessageRejected);
    await expect(failure).rejects.toMatchObject({ status: 404 });
  });

  it('when a user replies, then the reply keeps the audience: the parent’s author and CC see it', async () => {
    const [alice, bob, carol] = [
      await registerWriter(api),
      await registerWriter(api),
      await registerWriter(api),
    ];
    const parent = await clientOf(alice).post({
      content: 'question',
      recipients: [`uid:${bob.uid}`, `uid:${carol.uid}`],
    });
    const reply = await clientOf(bob).reply(parent, 'answer');
    expect(reply.parent_id).toBe(parent.id);
    expect(reply.recipients.map((r) => r.uid)).toEqual(expect.arrayContaining([alice.uid, carol.uid]));
    expect((await clientOf(carol).getMessage(reply.id)).content).toBe('answer');
    // The same reply without the audience reaches nobody: the contrast shows reply() set it.
    const bare = await clientOf(bob).post({ content: 'aside', parent_id: parent.id });
    await expect(clientOf(alice).getMessage(bare.id)).rejects.toMatchObject({ status: 404 });
  });

  it('when messages are saved, listed and unsaved, then bookmark, bookmarks and unbookmark follow the saved state', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const first = await clientOf(alice).post({ content: 'keep this', recipients: [`uid:${bob.uid}`] });
    const second = await clientOf(alice).post({ content: 'and this', recipients: [`uid:${bob.uid}`] });
    const reader = clientOf(bob);
    const saved = await reader.bookmark(first.id);
    expect(saved).toEqual({ message_id: first.id, saved: true, saved_at: expect.any(String) });
    expect((await reader.bookmark(first.id)).saved_at).toBe(saved.saved_at);
    await reader.bookmark(second.id);
    const all = await reader.bookmarks();
    expect(all.messages.map((m) => m.id).sort()).toEqual([first.id, second.id].sort());
    expect(all.messages.every((m) => m.is_saved)).toBe(true);
    expect(await reader.bookmarks({ limit: 1 })).toMatchObject({ skip: 0, limit: 1, has_more: true });
    expect(await reader.bookmarks({ skip: 1, limit: 1 })).toMatchObject({
      skip: 1,
      limit: 1,
      has_more: false,
    });
    expect(await reader.unbookmark(second.id)).toEqual({ message_id: second.id, saved: false });
    expect((await reader.bookmarks()).messages.map((m) => m.id)).toEqual([first.id]);
    await expect(clientOf(alice).bookmark('00000000')).rejects.toMatchObject({ status: 404 });
  });

  it('when the author edits a message, then editMessage answers it edited and messageEdits lists the old content', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const posted = await clientOf(alice).post({ content: 'first words', recipients: [`uid:${bob.uid}`] });
    const edited = await clientOf(alice).editMessage(posted.id, 'second words');
    expect(edited).toMatchObject({ id: posted.id, content: 'second words', edited_at: expect.any(String) });
    const history = await clientOf(bob).messageEdits(posted.id);
    expect(history.edits.map((e) => e.content)).toEqual(['first words']);
    await expect(clientOf(bob).editMessage(posted.id, 'not mine')).rejects.toMatchObject({ status: 403 });
  });

  it('when messages addressed to a user arrive, then unreadCounts counts them and markThreadRead clears their thread', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const root = await clientOf(alice).post({ content: 'unread one', recipients: [`uid:${bob.uid}`] });
    const reply = await clientOf(alice).post({
      content: 'unread two',
      parent_id: root.id,
      recipients: [`uid:${bob.uid}`],
    });
    const reader = clientOf(bob);
    expect(await reader.unreadCounts()).toMatchObject({
      total_messages: 2,
      total_threads: 1,
      threads: [{ root_id: root.id, unread_count: 2, latest_message_id: reply.id }],
    });
    expect(await reader.markThreadRead(reply.id)).toEqual({ message_id: reply.id, marked_read: 2 });
    expect(await reader.unreadCounts({ limit: 5 })).toMatchObject({
      total_messages: 0,
      threads: [],
      limit: 5,
    });
    await expect(reader.markThreadRead('00000000')).rejects.toMatchObject({ status: 404 });
  });

  it('when users are searched, then searchUsers answers the exact tag first, then display names, within the limit', async () => {
    const stem = uniqueTag('sdk');
    const named = new SkeinClient({ baseUrl: api.url });
    await named.register({
      user_tag: uniqueTag('n'),
      password: STRONG_PASSWORD,
      display_name: `Named ${stem}`,
    });
    const exact = new SkeinClient({ baseUrl: api.url });
    await exact.register({ user_tag: stem, password: STRONG_PASSWORD });
    const found = await named.searchUsers(stem.toUpperCase());
    expect(found.map((user) => [user.user_tag, user.display_name])).toEqual([
      [stem, null],
      [expect.any(String), `Named ${stem}`],
    ]);
    expect((await named.searchUsers(stem, 1)).map((user) => user.user_tag)).toEqual([stem]);
    await expect(named.searchUsers('  ')).rejects.toMatchObject({ status: 422, code: 'validation_error' });
  });

  it('when notifications are read from a cursor, then only the later events come', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const start = (await clientOf(bob).notifications()).cursor;
    const posted = await clientOf(alice).post({ content: 'n1', recipients: [`uid:${bob.uid}`] });
    const page = await clientOf(bob).notifications({ since: start });
    expect(page.notifications.map((n) => idsOf(n.event))).toEqual([[posted.id]]);
  });
});

describe('TypeScript SDK: SkeinSocket', () => {
  it('when the socket drops, then it resumes from its last cursor: missed events once, in order, no repeats', async () => {
    const [alice, bob] = [await registerWriter(api), await registerWriter(api)];
    const frames: NotificationFrame[] = [];
    const socket = new SkeinSocket({
      baseUrl: api.url,
      token: bob.token,
      reconnectDelayMs: 50,
      onNotification: (frame) => void frames.push(frame),
    });
    const ready = await socket.connect();
    expect(ready.uid).toBe(bob.uid);
    expect(socket.lastCursor).toBe(ready.cursor);
    try {
      const send = async (content: string) =>
        (await clientOf(alice).post({ content, recipients: [`uid:${bob.uid}`] })).id;
      const first = await send('one');
      await waitUntil(() => frames.length === 1, 'the first notification');
      expect(socket.lastCursor).toBe(frames[0]!.cursor);

      // While the socket is down, two more arrive; the next connection must carry ?since=<cursor>.
      await socket.close();
      const missed = [await send('two'), await send('three')];
      await socket.reconnect();
      const live = await send('four');
      await waitUntil(() => frames.length >= 4, 'the replayed and live notifications');
      await sleep(300); // a repeat would arrive now
      expect(frames.map((f) => idsOf(f.event))).toEqual([[first], ...missed.map((id) => [id]), [live]]);
      expect(socket.lastCursor).toBe(frames[3]!.cursor);
    } finally {
      await socket.close();
    }
  });

  it('when the session is not valid, then connect rejects with the refusal', async () => {
    const socket = new SkeinSocket({
      baseUrl: api.url,
      token: 'svc_session_0000000000000000.invalid',
      onNotification: () => undefined,
    });
    await expect(socket.connect()).rejects.toThrow(/invalid_session|not_authenticated|4401/);
    await socket.close();
  });
});

/** The webhook `receiver` got for a message, and its Standard Webhooks headers. */
async function deliveryOf(receiver: WebhookReceiver, messageId: string) {
  const deliveries = await receiver.waitFor((all) => all.some((d) => d.body.includes(messageId)));
  const received = deliveries.find((d) => d.body.includes(messageId))!;
  const headers = {
    'webhook-id': received.webhookId,
    'webhook-timestamp': received.timestamp,
    'webhook-signature': received.signature,
  };
  return { received, headers };
}

describe('TypeScript SDK: verifyWebhook', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('when a manager edits, deactivates, reactivates a bot and rotates its secret, then the SDK calls answer as the API does', async () => {
    const manager = await registerWriter(api);
    const bot = await botWithEndpoint(api, manager, receiver);
    const client = clientOf(manager);
    expect(await client.updateManagedUser(bot.uid, { display_name: 'Renamed by SDK' })).toMatchObject({
      uid: bot.uid,
      display_name: 'Renamed by SDK',
      deactivated_at: null,
    });
    expect((await client.setManagedUserActive(bot.uid, false)).deactivated_at).toEqual(expect.any(String));
    expect((await client.setManagedUserActive(bot.uid, true)).deactivated_at).toBeNull();

    const rotated = await client.rotateEndpointSecret(bot.uid, 0);
    expect(rotated.secret).toMatch(/^whsec_/);
    const posted = await messageTo(api, manager, bot, 'signed with the new secret');
    const { received, headers } = await deliveryOf(receiver, posted.id);
    expect(verifyWebhook(rotated.secret, received.body, headers).type).toBe('sent');
    expect(() => verifyWebhook(receiver.secret!, received.body, headers)).toThrow(WebhookVerificationError);
    // A delivered delivery is not sent again: the call reaches the route, which refuses it.
    await expect(client.redeliver(bot.uid, received.webhookId)).rejects.toMatchObject({
      status: 409,
      code: 'delivery_not_redeliverable',
    });
  });

  it('when Skein delivers a webhook, then verifyWebhook accepts it and answers the event; an altered one throws', async () => {
    const manager = await registerWriter(api);
    const bot = await botWithEndpoint(api, manager, receiver);
    const posted = await messageTo(api, manager, bot, 'signed hello');
    const { received, headers } = await deliveryOf(receiver, posted.id);
    const event = verifyWebhook(receiver.secret!, received.body, headers);
    expect(event).toMatchObject({ type: 'sent', recipient_uid: bot.uid });
    expect(event.content.messages.map((m) => m.id)).toEqual([posted.id]);
    expect(verifyWebhook(receiver.secret!, Buffer.from(received.body), new Headers(headers)).type).toBe(
      'sent',
    );

    expect(() => verifyWebhook(receiver.secret!, received.body.replace('signed', 'forged'), headers)).toThrow(
      WebhookVerificationError,
    );
    const otherSecret = `whsec_${Buffer.from('another secret of some length').toString('base64')}`;
    expect(() => verifyWebhook(otherSecret, received.body, headers)).toThrow(WebhookVerificationError);
    const stale = new Date(Date.now() - 10 * 60_000);
    const staleHeaders = {
      ...headers,
      'webhook-timestamp': String(Math.floor(stale.getTime() / 1000)),
      'webhook-signature': new Webhook(receiver.secret!).sign(received.webhookId, stale, received.body),
    };
    expect(() => verifyWebhook(receiver.secret!, received.body, staleHeaders)).toThrow(
      WebhookVerificationError,
    );
  });
});

describe('Python SDK: pytest sdks/python/tests against this service', () => {
  let venvPython: string;
  beforeAll(async () => {
    // Makes sdks/python/.venv when it is missing or stale (sdks/python/setup-venv.sh).
    venvPython = await pythonSdkVenv();
  }, 600_000);

  it('when pytest runs against the service, then every Python test passes', async () => {
    const result = await runCommand(
      venvPython,
      ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'sdks/python/tests'],
      {
        env: {
          SKEIN_URL: api.url,
          SKEIN_ADMIN_TAG: TEST_ADMIN.tag,
          SKEIN_ADMIN_PASSWORD: TEST_ADMIN.password,
        },
      },
    );
    if (result.code !== 0) throw new Error(`pytest failed (exit ${result.code}):\n${result.output}`);
    // The summary names only passes: a skipped, xfailed or erroring test would be listed there.
    // Over a minute, pytest adds the time as h:mm:ss: "20 passed in 208.82s (0:03:28)".
    expect(result.output).toMatch(/^\d+ passed in [\d.]+s(?: \(\d+:\d\d:\d\d\))?\s*$/m);
  }, 420_000);
});

function idsOf(event: { content: object }): string[] {
  const content = event.content as { messages?: { id: string }[] };
  return (content.messages ?? []).map((m) => m.id);
}

async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
