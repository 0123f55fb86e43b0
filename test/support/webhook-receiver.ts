// A real webhook endpoint for tests: a Node HTTP server on 127.0.0.1 that records every request,
// verifies Standard Webhooks signatures with the `standardwebhooks` package (the library a bot would
// use), answers endpoint-verification nonces, and gives programmed answers (500, 410, a redirect,
// 429 with Retry-After, a slow answer) to webhook deliveries in the order they arrive.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  webhookId: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  /** The raw body, exactly as sent. */
  body: string;
  /** Whether the signature verified with the receiver's secret (and the timestamp is recent). */
  verified: boolean;
  /** Date.now() when the request arrived. */
  receivedAt: number;
  path: string;
  /** The answer given. */
  answeredStatus: number;
}

export interface ProgrammedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a slow endpoint). */
  delayMs?: number;
}

export interface WebhookReceiver {
  /** The endpoint URL to verify. */
  url: string;
  /** Any other URL on this server (a redirect target, say). */
  urlFor(path: string): string;
  /** Webhook deliveries received, in arrival order (verification requests are not included). */
  received: ReceivedWebhook[];
  /** Every request to paths other than the endpoint's. */
  otherRequests: { method: string; path: string }[];
  /** Nonce requests answered during endpoint verification. */
  nonces: string[];
  /** The signing secret from the verify response; signatures are checked against it. */
  secret: string | undefined;
  /** Queues answers for the next deliveries; when the queue is empty the answer is 200. */
  answer(...answers: ProgrammedAnswer[]): void;
  /** Resolves with the deliveries once `predicate` holds for them; rejects after `timeoutMs`. */
  waitFor(
    predicate: (received: ReceivedWebhook[]) => boolean,
    timeoutMs?: number,
    what?: string,
  ): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

const ENDPOINT_PATH = '/hook';

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const queue: ProgrammedAnswer[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const receiver: WebhookReceiver = {
    url: '',
    urlFor: (path) => `${receiver.url.slice(0, -ENDPOINT_PATH.length)}${path}`,
    received: [],
    otherRequests: [],
    nonces: [],
    secret: undefined,
    answer: (...answers) => queue.push(...answers),
    waitFor: async (predicate, timeoutMs = 30_000, what = 'webhook deliveries') => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) {
          const seen = receiver.received.map((r) => `${r.webhookId} → ${r.answeredStatus}`).join(', ');
          throw new Error(`Timed out waiting for ${what}; received: [${seen}]`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return receiver.received;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (url.pathname !== ENDPOINT_PATH) {
      receiver.otherRequests.push({ method: req.method ?? '', path: url.pathname });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const webhookId = header(req, 'webhook-id');
    if (!webhookId) {
      answerNonce(req, res, url, body);
      return;
    }
    const programmed = queue.shift() ?? { status: 200 };
    receiver.received.push({
      webhookId,
      timestamp: header(req, 'webhook-timestamp') ?? '',
      signature: header(req, 'webhook-signature') ?? '',
      contentType: header(req, 'content-type'),
      body,
      verified: verify(receiver.secret, body, req),
      receivedAt: Date.now(),
      path: url.pathname,
      answeredStatus: programmed.status,
    });
    if (programmed.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, programmed.delayMs);
        timers.add(timer);
      });
    }
    if (res.destroyed) return;
    res.writeHead(programmed.status, { 'content-type': 'text/plain', ...programmed.headers });
    res.end(programmed.body ?? '');
  };

  /** Echoes a verification nonce however it comes: JSON POST, plain-text POST, or GET ?nonce=. */
  const answerNonce = (req: IncomingMessage, res: ServerResponse, url: URL, body: string): void => {
    let nonce = url.searchParams.get('nonce') ?? undefined;
    if (nonce === undefined && req.method === 'POST') {
      try {
        const parsed = JSON.parse(body) as { nonce?: unknown };
        if (typeof parsed.nonce === 'string') nonce = parsed.nonce;
      } catch {
        nonce = body.trim() || undefined;
      }
    }
    if (nonce === undefined) {
      res.writeHead(400).end();
      return;
    }
    receiver.nonces.push(nonce);
    const wantsJson = (header(req, 'content-type') ?? '').includes('json');
    if (wantsJson) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ nonce }));
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(nonce);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${ENDPOINT_PATH}`;
  return receiver;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function verify(secret: string | undefined, body: string, req: IncomingMessage): boolean {
  if (!secret) return false;
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': header(req, 'webhook-id') ?? '',
      'webhook-timestamp': header(req, 'webhook-timestamp') ?? '',
      'webhook-signature': header(req, 'webhook-signature') ?? '',
    });
    return true;
  } catch {
    return false;
  }
}
