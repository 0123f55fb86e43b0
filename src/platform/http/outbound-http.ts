// The one way Skein calls out to URLs its users gave it (endpoint verification and webhook delivery).
// Server-side request forgery is stopped by request-filtering-agent, which checks the address a
// connection actually goes to (after DNS, so a name that rebinds to 127.0.0.1 is refused too) and
// refuses loopback, private, link-local and reserved ranges unless SKEIN_WEBHOOK_ALLOW_PRIVATE=true;
// IPv6 forms that embed an IPv4 address are refused here as well (see embedded-ipv4.ts), both as
// literal hosts and as what a name resolves to.
// Redirects are never followed (a redirect is the caller's failure to handle), answers are read up
// to a cap, and every request has a time-out.
import dns from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { carriesIPv4 } from './embedded-ipv4.js';

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

const embeddedRefusal = (address: string) =>
  new OutboundRefused(`The address ${address} embeds an IPv4 address and is not allowed.`);

/**
 * Resolves like dns.lookup, refusing the whole name when any of its addresses embeds an IPv4 one
 * (the guarded agent then checks the rest against its private ranges).
 */
const lookupRefusingEmbeddedIPv4: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((entry) => carriesIPv4(entry.address));
    if (refused) return callback(embeddedRefusal(refused.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(new OutboundFailed(`${hostname} has no address.`), []);
    callback(null, first.address, first.family);
  });
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
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivate && carriesIPv4(host)) return Promise.reject(embeddedRefusal(host));
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
        ...(options.allowPrivate ? {} : { lookup: lookupRefusingEmbeddedIPv4 }),
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
      if (error instanceof OutboundFailed || error instanceof OutboundRefused) reject(error);
      else if (/is not allowed/i.test(error.message)) reject(new OutboundRefused(error.message));
      else reject(new OutboundFailed(error.message));
    });
    req.end(request.body);
  });
}
