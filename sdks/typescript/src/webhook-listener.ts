// The HTTP side of a webhook bot: a Node request listener (also usable as Express middleware) that
// answers Skein's endpoint verification, checks each delivery's Standard Webhooks signature against
// the raw body, answers 200 at once and only then hands the event on, so a slow handler never runs
// into the 15-second delivery time-out. Delivery is at-least-once: a `webhook-id` already taken is
// answered 200 again and not handed on twice.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from './webhooks.js';

/** A request handler for `http.createServer(...)` or Express (`app.post('/skein', listener)`). */
export type WebhookRequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface WebhookListenerOptions {
  /** The `whsec_` secret in force (read per request, so registerEndpoint() can set it later). */
  secret: () => string | undefined;
  /** Takes a verified event; false when the bot is stopping (the delivery is answered 503, retried later). */
  deliver: (event: WebhookEvent, webhookId: string) => boolean;
  warn: (message: string) => void;
  /** How many `webhook-id`s to remember. Default 10 000. */
  remember?: number | undefined;
  /** The largest body accepted. Default 1 MiB. */
  maxBodyBytes?: number | undefined;
}

export function createWebhookListener(options: WebhookListenerOptions): WebhookRequestListener {
  const seen = new Set<string>();
  const remember = options.remember ?? 10_000;
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;

  const receive = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // The last of the service's endpoint-verification attempts: GET ?nonce=.
    if (req.method === 'GET' && url.searchParams.has('nonce')) {
      return answer(res, 200, { nonce: url.searchParams.get('nonce') });
    }
    if (req.method !== 'POST') return answer(res, 405, { detail: 'Webhook deliveries are POSTs.' });
    const body = await rawBody(req, maxBody);
    if (body === 'too_large') return answer(res, 413, { detail: 'The body is too large.' });
    if (body === 'parsed') {
      options.warn(
        'a body parser ran before the webhook listener, so signatures cannot be checked: mount it ' +
          'before express.json(), or behind express.raw({ type: "application/json" })',
      );
      return answer(res, 500, { detail: 'The raw body is needed to verify the signature.' });
    }
    if (req.headers['webhook-signature'] === undefined) return answerVerification(res, body);

    const secret = options.secret();
    if (!secret) {
      options.warn(
        'a delivery came but no signing secret is set: set SKEIN_WEBHOOK_SECRET to the whsec_ secret ' +
          'that POST /v1/auth/contacts/endpoint/verify answered (or call bot.registerEndpoint(url))',
      );
      return answer(res, 503, { detail: 'No signing secret is configured yet.' });
    }
    let event: WebhookEvent;
    try {
      event = verifyWebhook(secret, body, req.headers);
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        return answer(res, 401, { detail: `Not a delivery from Skein: ${error.message}` });
      }
      return answer(res, 400, { detail: 'The body is not a webhook event.' });
    }
    const webhookId = String(req.headers['webhook-id']);
    if (seen.has(webhookId)) return answer(res, 200, {});
    if (!options.deliver(event, webhookId)) {
      res.setHeader('retry-after', '5');
      return answer(res, 503, { detail: 'The bot is stopping.' });
    }
    seen.add(webhookId);
    if (seen.size > remember) seen.delete(seen.values().next().value!);
    answer(res, 200, {});
  };

  return (req, res) => {
    receive(req, res).catch((error: unknown) => {
      options.warn(`webhook request failed: ${String(error)}`);
      if (!res.headersSent) answer(res, 500, { detail: 'The webhook listener failed.' });
      else res.end();
    });
  };
}

/** Endpoint verification: the service posts a nonce (as JSON `{"nonce"}`, or as plain text) to echo. */
function answerVerification(res: ServerResponse, body: Buffer): void {
  const text = body.toString('utf8').trim();
  let nonce: unknown = text;
  try {
    const parsed = JSON.parse(text) as unknown;
    nonce = typeof parsed === 'object' && parsed !== null ? (parsed as { nonce?: unknown }).nonce : parsed;
  } catch {
    // plain text: the nonce itself
  }
  if (typeof nonce !== 'string' || nonce.length === 0) {
    return answer(res, 400, { detail: 'Neither a signed delivery nor a verification nonce.' });
  }
  answer(res, 200, { nonce });
}

/** The body as received; Express's raw()/text() parsers leave it in req.body, json() spoils it. */
async function rawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'parsed' | 'too_large'> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (Buffer.isBuffer(parsed)) return parsed;
  if (typeof parsed === 'string') return Buffer.from(parsed, 'utf8');
  if (parsed !== undefined && parsed !== null && !(typeof parsed === 'object' && isEmpty(parsed))) {
    return 'parsed';
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxBytes) return 'too_large';
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function isEmpty(value: object): boolean {
  return Object.keys(value).length === 0;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}
