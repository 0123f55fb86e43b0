// Webhook signature verification (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the endpoint's
// `whsec_` secret from POST /v1/auth/contacts/endpoint/verify). The `standardwebhooks` package does the
// constant-time comparison and refuses timestamps more than five minutes away.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './generated/openapi.js';

export type WebhookEvent = components['schemas']['NotificationEvent'];
export { WebhookVerificationError };

/** Header values by lower-case name, as Node's IncomingMessage.headers or a Headers object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => (record[name] = value));
    return record;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) record[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}

/**
 * Checks a delivery's signature against the raw body (the exact bytes received, before any JSON
 * parsing) and answers the parsed event; throws WebhookVerificationError when it is not Skein's.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string | Buffer,
  headers: WebhookHeaders,
): WebhookEvent {
  const payload = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  return new Webhook(secret).verify(payload, headerRecord(headers)) as WebhookEvent;
}
