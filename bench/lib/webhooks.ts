// The webhook receiver of the benchmark: a local HTTP server in the bench process that echoes the
// verification nonce ({"nonce"} JSON POST) and records when each delivery arrives, keyed by
// "<recipient uid>/<message id>" (several bots may share it, each at its own path).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** Arrival time (performance.now()) of the first delivery for each "<uid>/<message id>". */
  arrivals: Map<string, number>;
  /** Bytes of the last delivery body. */
  bodyBytes: number;
  deliveries: number;
  /** Resolves when the delivery `<uid>/<message id>` has arrived (or after `timeoutMs`, with null). */
  waitFor(key: string, timeoutMs: number): Promise<number | null>;
  /**
   * Stops answering deliveries (they wait, unanswered, so the dispatcher's in-flight slots fill up
   * and a backlog builds in the outbox) until release(), or at the latest after `maxMs` (kept under
   * the 15 s request time-out, so nothing is retried).
   */
  hold(maxMs: number): void;
  /** Answers the held deliveries; answers the release time and how many were held. */
  release(): { at: number; held: number };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const state = { bodyBytes: 0, deliveries: 0 };
  let held: (() => void)[] | null = null;
  let holdTimer: NodeJS.Timeout | undefined;
  let releasedAt = 0;
  let releasedCount = 0;
  const release = () => {
    clearTimeout(holdTimer);
    if (held === null) return { at: releasedAt, held: releasedCount };
    const answers = held;
    held = null;
    releasedAt = performance.now();
    releasedCount = answers.length;
    for (const answer of answers) answer();
    return { at: releasedAt, held: releasedCount };
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const text = Buffer.concat(chunks).toString('utf8');
      let body: { nonce?: string; recipient_uid?: string; content?: { messages?: { id: string }[] } } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // a plain-text nonce or a GET: answered below
      }
      if (typeof body.nonce === 'string') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ nonce: body.nonce }));
        return;
      }
      if (req.headers['webhook-id']) {
        state.deliveries++;
        state.bodyBytes = text.length;
        for (const message of body.content?.messages ?? []) {
          const key = `${body.recipient_uid ?? ''}/${message.id}`;
          if (arrivals.has(key)) continue;
          arrivals.set(key, at);
          waiters.get(key)?.(at);
          waiters.delete(key);
        }
      }
      const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (held !== null && req.headers['webhook-id']) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    get bodyBytes() {
      return state.bodyBytes;
    },
    get deliveries() {
      return state.deliveries;
    },
    waitFor: (key, timeoutMs) => {
      const known = arrivals.get(key);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(key);
          resolve(null);
        }, timeoutMs);
        waiters.set(key, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    hold: (maxMs) => {
      held = [];
      holdTimer = setTimeout(release, maxMs);
    },
    release,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
