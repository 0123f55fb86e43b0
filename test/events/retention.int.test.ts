// Events are kept SKEIN_EVENT_RETENTION_DAYS (7 by default) and then pruned (hourly, and through
// EventLogServices.prune): a pruned event is gone from GET /v1/notifications and from replays, an
// event inside the retention stays. The webhook planner must have read an event before it may go,
// so this file runs a dispatcher, and gives a bot a verified endpoint: the planner reads every
// numbered event while some endpoint is live (planning-due.cypher), and otherwise only once it lags
// a batch behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { botWithEndpoint } from '../webhooks/webhook-helpers.js';

let api: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: true });
  receiver = await startWebhookReceiver();
  await botWithEndpoint(api, await registerWriter(api), receiver);
});

afterAll(async () => {
  await api.close();
  await receiver.close();
});

interface NotificationPage {
  notifications: { event: { type: string; content: { messages: { id: string }[] } } }[];
}

/** The seq of the event about this message, once the webhook planner has read it. */
async function plannedSeq(messageId: string): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await api.ctx.db.runText(
      `MATCH (e:Event) WHERE $id IN e.message_ids AND e.seq IS NOT NULL
       OPTIONAL MATCH (p:WebhookPlanner {id: 'planner'})
       RETURN e.seq AS seq, coalesce(p.head, 0) >= e.seq AS planned`,
      { id: messageId },
    );
    if (rows.length > 0 && rows.every((r) => r.planned === true)) return Number(rows[0]!.seq);
    if (Date.now() > deadline) throw new Error(`the planner never read the event of ${messageId}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('event retention', () => {
  it('when an event is older than the retention, then pruning removes it from notifications and replays; a recent one stays', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const old = await postMessage(api, author.token, {
      content: 'long ago',
      recipients: [{ uid: reader.uid }],
    });
    const recent = await postMessage(api, author.token, {
      content: 'just now',
      recipients: [{ uid: reader.uid }],
    });
    await plannedSeq(old.id);
    await plannedSeq(recent.id);

    await api.ctx.db.runText(
      `MATCH (e:Event) WHERE $id IN e.message_ids SET e.created_at = datetime() - duration('P8D')`,
      { id: old.id },
    );
    expect(await api.ctx.events.prune()).toBeGreaterThanOrEqual(1);

    const left = await api.request<NotificationPage>('GET', '/v1/notifications?limit=100', {
      token: reader.token,
    });
    expect(left.status).toBe(200);
    const ids = left.body.notifications.flatMap((n) => n.event.content.messages.map((m) => m.id));
    expect(ids).toEqual([recent.id]);
    const stored = await api.ctx.db.runText(
      'MATCH (e:Event) WHERE $id IN e.message_ids RETURN count(e) AS n',
      {
        id: old.id,
      },
    );
    expect(Number(stored[0]!.n)).toBe(0);
    // The message itself is untouched: only its event went.
    expect((await api.request('GET', `/v1/messages/${old.id}`, { token: reader.token })).status).toBe(200);
  });
});
