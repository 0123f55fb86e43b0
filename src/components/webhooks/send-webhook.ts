// One webhook attempt: the body signed the Standard Webhooks way (the `standardwebhooks` package, so
// receivers can verify it with the same library in any language) and POSTed through the one
// outbound door, which refuses private addresses and never follows redirects.
import { Webhook } from 'standardwebhooks';
import { OutboundRefused, sendOutbound } from '../../platform/http/outbound-http.js';
import type { AttemptResult } from './delivery-policy.js';

/** The contract's time-out for one webhook request. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

export interface WebhookRequest {
  webhookId: string;
  url: string;
  /** The endpoint's "whsec_<base64>" secret. */
  secret: string;
  /** The secret a rotation replaced, while its overlap lasts; it signs too. */
  previousSecret?: string | null;
  /** The exact JSON body. */
  payload: string;
}

/**
 * The three Standard Webhooks headers; the timestamp and signature are fresh on every attempt. During
 * a rotation's overlap the signature header carries one signature per secret, the new one first,
 * space-separated (`v1,<new> v1,<old>`): the scheme's way to rotate, and a receiver's verify accepts
 * the request when any of them matches its secret.
 */
export function signWebhook(request: WebhookRequest, at: Date): Record<string, string> {
  const secrets = request.previousSecret ? [request.secret, request.previousSecret] : [request.secret];
  const signatures = secrets.map((secret) =>
    new Webhook(secret).sign(request.webhookId, at, request.payload),
  );
  return {
    'webhook-id': request.webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/** Sends one attempt and describes what happened; never throws. */
export async function sendWebhook(
  request: WebhookRequest,
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<AttemptResult> {
  let headers: Record<string, string>;
  try {
    headers = signWebhook(request, new Date());
  } catch {
    return { kind: 'failed', error: 'The endpoint signing secret is not usable; verify the endpoint again.' };
  }
  try {
    const answer = await sendOutbound(
      {
        url: request.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: request.payload,
        timeoutMs: options.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      },
      { allowPrivate: options.allowPrivate },
    );
    return {
      kind: 'answer',
      status: answer.status,
      retryAfter: headerText(answer.headers['retry-after']),
      location: headerText(answer.headers.location),
      body: answer.body,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return error instanceof OutboundRefused
      ? { kind: 'refused', error: message }
      : { kind: 'failed', error: message };
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
