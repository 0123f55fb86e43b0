// The one way Skein calls out to URLs its users gave it (endpoint verification and webhook delivery).
// Server-side request forgery is stopped by request-filtering-agent, which checks the address a
// connection actually goes to (after DNS, so a name that rebinds to 127.0.0.1 is refused too) and
// refuses loopback, private, link-local and reserved ranges unless SKEIN_WEBHOOK_ALLOW_PRIVATE=true.
// Redirects are never followed (a redirect is the caller's failure to handle), answers are read up
// to a cap, and every request has a time-out.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Default 15 s, the contract's webhook time-out. */
  timeoutMs?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's body as text, cut at MAX_ANSWER_BYTES. */
  body: string;
}

/** The target resolved to an address Skein must not call. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
}

/** The request could not complete: connection error, time-out, or the URL is unusable. */
export class OutboundFailed extends Error {
  override name = 'OutboundFailed';
}

const MAX_ANSWER_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;

const agents = {
  guarded: {
    http: new RequestFilteringHttpAgent({ keepAlive: true }),
    https: new RequestFilteringHttpsAgent({ keepAlive: true }),
  },
  open: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
};

/**
 * Parses a user-given endpoint URL: http or https, a host, no user:password part. Returns null when
 * the URL is not acceptable, so callers can answer with their own 400.
 */
export function parseEndpointUrl(value: string): URL | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname || url.username || url.password) return null;
  return url;
}

/** Sends one request; resolves with any HTTP answer (including 3xx, 4xx, 5xx), rejects otherwise. */
export function sendOutbound(
  request: OutboundRequest,
  options: { allowPrivate: boolean },
): Promise<OutboundResponse> {
  const url = parseEndpointUrl(request.url);
  if (!url) return Promise.reject(new OutboundFailed(`Not a usable http(s) URL: ${request.url}`));
  const set = options.allowPrivate ? agents.open : agents.guarded;
  const client = url.protocol === 'https:' ? https : http;
  const agent = url.protocol === 'https:' ? set.https : set.http;
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: request.method,
        agent,
        headers: {
          'user-agent': 'Skein-Webhooks/1.0',
          ...request.headers,
          ...(request.body !== undefined
            ? { 'content-length': String(Buffer.byteLength(request.body)) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_ANSWER_BYTES) return;
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8'),
          }),
        );
        res.on('error', (error) => reject(new OutboundFailed(error.message)));
      },
    );
    // One deadline for the whole exchange, not per socket event, so a slow drip cannot hold it open.
    const deadline = setTimeout(
      () => req.destroy(new OutboundFailed(`No answer within ${timeoutMs} ms.`)),
      timeoutMs,
    );
    req.on('close', () => clearTimeout(deadline));
    req.on('error', (error) => {
      clearTimeout(deadline);
      if (error instanceof OutboundFailed) reject(error);
      else if (/is not allowed/i.test(error.message)) reject(new OutboundRefused(error.message));
      else reject(new OutboundFailed(error.message));
    });
    req.end(request.body);
  });
}
