// Shared steps of the webhook tests: a bot that proves its endpoint through the contacts API, planning
// deliveries from the event log without sending them, and reading a delivery log until it says what
// a test waits for.
import { expect } from '@jest/globals';
import { planDeliveries } from '../../src/components/webhooks/webhooks-repository.js';
import { createManaged, postMessage, type PostedMessage, type TestUser } from '../support/factories.js';
import type { ApiResponse, TestServer } from '../support/test-server.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

export interface Bot {
  uid: string;
  user_tag: string;
  /** A delegated session of the bot (its manager acting through POST /v1/managed/auth/delegate). */
  token: string;
}

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  url: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface Delivery {
  webhook_id: string;
  type: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed' | 'disabled' | 'dropped';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  log: DeliveryAttempt[];
  /** Built when the log is read; null once nothing of it is visible to the user any more. */
  event: { type: string; recipient_uid: string; content: { messages: unknown[]; context: unknown[] } } | null;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  skip: number;
  limit: number;
  has_more: boolean;
}

/** Proves the receiver's URL as the token's user's endpoint; the receiver learns the signing secret. */
export async function verifyEndpoint(
  api: TestServer,
  token: string,
  receiver: WebhookReceiver,
): Promise<void> {
  const requested = await api.request('POST', '/v1/auth/contacts/endpoint/request', {
    token,
    body: { url: receiver.url },
  });
  expect(requested.status).toBe(200);
  const verified = await api.request<{ verified: boolean; secret: string }>(
    'POST',
    '/v1/auth/contacts/endpoint/verify',
    { token, body: { url: receiver.url } },
  );
  expect(verified.status).toBe(200);
  expect(verified.body.secret).toMatch(/^whsec_/);
  receiver.secret = verified.body.secret;
}

/** A bot managed by `manager` whose endpoint is the receiver. */
export async function botWithEndpoint(
  api: TestServer,
  manager: TestUser,
  receiver: WebhookReceiver,
): Promise<Bot> {
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expect(delegated.status).toBe(200);
  await verifyEndpoint(api, delegated.body.access_token, receiver);
  return { uid: bot.uid, user_tag: bot.user_tag, token: delegated.body.access_token };
}

/** Posts a message from `author` with the bot as its one recipient. */
export function messageTo(
  api: TestServer,
  author: TestUser,
  bot: Bot,
  content: string,
  extra: Record<string, unknown> = {},
): Promise<PostedMessage> {
  return postMessage(api, author.token, { content, recipients: [`uid:${bot.uid}`], ...extra });
}

export function readDeliveries(
  api: TestServer,
  token: string,
  uid: string,
  query = '',
): Promise<ApiResponse<DeliveryPage>> {
  return api.request<DeliveryPage>('GET', `/v1/managed/users/${uid}/deliveries${query}`, { token });
}

/** Reads the user's delivery log until `predicate` holds; fails with the last log seen. */
export async function waitForDeliveries(
  api: TestServer,
  token: string,
  uid: string,
  predicate: (deliveries: Delivery[]) => boolean,
  timeoutMs = 30_000,
): Promise<Delivery[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await readDeliveries(api, token, uid, '?limit=100');
    expect(res.status).toBe(200);
    if (predicate(res.body.deliveries)) return res.body.deliveries;
    if (Date.now() > deadline) {
      throw new Error(`Timed out; the delivery log is ${JSON.stringify(res.body.deliveries, null, 1)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Plans deliveries for every event numbered so far, as a dispatcher's round does first, without
 * sending anything: for tests where no dispatcher runs (deliveries are planned from the event log by
 * dispatchers only).
 */
export async function planNow(api: TestServer): Promise<void> {
  while ((await planDeliveries(api.ctx.db, 500)).full);
}
