// HTTP load through autocannon (programmatic, in the bench process; the service and the bare
// server run in their own processes). Each request can differ (path, body, headers) through
// setupRequest. Latencies are taken from autocannon's per-response event, in fractional
// milliseconds (its own histogram keeps whole milliseconds only).
import autocannon from 'autocannon';
import { merge, summarize, type Measured } from './stats.js';

export interface HttpRequestSpec {
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface HttpLoadOptions {
  baseUrl: string;
  method: 'GET' | 'POST';
  connections: number;
  seconds: number;
  /** The request number i (0, 1, 2...); the same sequence is replayed after the warm-up. */
  request: (i: number) => HttpRequestSpec;
  /** Units per successful request (e.g. 100 messages per multi-message post). */
  unitsPerRequest?: number;
  /** Unmeasured requests first (plan cache, JIT, connection set-up). */
  warmupRequests?: number;
  /** Number of the first request (a measurement in parts continues the sequence). */
  startAt?: number;
}

export interface HttpMeasured extends Measured {
  non2xx: number;
}

export function mergeHttp(parts: HttpMeasured[]): HttpMeasured {
  return { ...merge(parts), non2xx: parts.reduce((sum, p) => sum + p.non2xx, 0) };
}

function runAutocannon(
  options: HttpLoadOptions,
  seconds: number,
  onResponse: (status: number, bytes: number, ms: number) => void,
): Promise<autocannon.Result> {
  let i = options.startAt ?? 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.baseUrl,
        method: options.method,
        connections: options.connections,
        duration: seconds,
        timeout: 30,
        headers: options.method === 'POST' ? { 'content-type': 'application/json' } : {},
        requests: [
          {
            setupRequest: (req) => {
              const spec = options.request(i++);
              return {
                ...req,
                path: spec.path,
                ...(spec.body !== undefined ? { body: spec.body } : {}),
                headers: { ...req.headers, ...spec.headers },
              };
            },
          },
        ],
      },
      (error, result) => (error ? reject(error as Error) : resolve(result)),
    );
    instance.on('response', (_client, status: number, bytes: number, ms: number) =>
      onResponse(status, bytes, ms),
    );
  });
}

export async function measureHttp(options: HttpLoadOptions): Promise<HttpMeasured> {
  // Warm-up through fetch: an autocannon run bounded by `amount` lasts at least a second.
  const warmup = options.warmupRequests ?? options.connections * 3;
  let next = options.startAt ?? 0;
  const end = next + warmup;
  await Promise.all(
    Array.from({ length: Math.min(warmup, options.connections) }, async () => {
      while (next < end) {
        const spec = options.request(next++);
        const res = await fetch(`${options.baseUrl}${spec.path}`, {
          method: options.method,
          headers: {
            ...spec.headers,
            ...(options.method === 'POST' ? { 'content-type': 'application/json' } : {}),
          },
          ...(spec.body !== undefined ? { body: spec.body } : {}),
        });
        await res.arrayBuffer();
      }
    }),
  );
  const latencies: number[] = [];
  let non2xx = 0;
  const began = performance.now();
  const result = await runAutocannon(options, options.seconds, (status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else non2xx++;
  });
  const seconds = (performance.now() - began) / 1000;
  const units = latencies.length * (options.unitsPerRequest ?? 1);
  return { ...summarize(latencies, units, result.errors + result.timeouts, seconds), non2xx };
}
