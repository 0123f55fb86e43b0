// Proof that whoever gave an endpoint URL controls it: Skein sends a fresh nonce and the endpoint
// must echo it. The spec's order: a JSON POST {"nonce"}, then a plain-text POST of the nonce, then a
// GET with ?nonce=; the first echo wins. An echo is an answer 2xx whose body is the nonce (spaces
// around it allowed), the nonce as a JSON string, or a JSON object {"nonce": <the nonce>}. Requests go
// through sendOutbound, so private and loopback targets are refused (unless
// SKEIN_WEBHOOK_ALLOW_PRIVATE=true) and redirects are not followed.
import { randomBytes } from 'node:crypto';
import { OutboundRefused, sendOutbound, type OutboundRequest } from '../../platform/http/outbound-http.js';

export type EchoOutcome =
  | { outcome: 'echoed' }
  /** Some attempt answered 2xx, but none echoed the nonce. */
  | { outcome: 'mismatch' }
  /** The URL resolves to an address Skein must not call. */
  | { outcome: 'refused'; detail: string }
  /** No attempt got a 2xx answer (connection errors, time-outs, 3xx/4xx/5xx). */
  | { outcome: 'failed'; detail: string };

/** Each attempt's time limit: three attempts keep a dead endpoint's verify under 20 seconds. */
const ATTEMPT_TIMEOUT_MS = 6_000;

export function newNonce(): string {
  return randomBytes(24).toString('base64url');
}

export function echoes(body: string, nonce: string): boolean {
  if (body.trim() === nonce) return true;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed === nonce) return true;
    return typeof parsed === 'object' && parsed !== null && (parsed as { nonce?: unknown }).nonce === nonce;
  } catch {
    return false;
  }
}

export async function proveEndpoint(
  url: string,
  nonce: string,
  options: { allowPrivate: boolean },
): Promise<EchoOutcome> {
  const withQuery = new URL(url);
  withQuery.searchParams.set('nonce', nonce);
  const attempts: OutboundRequest[] = [
    {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nonce }),
    },
    { url, method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: nonce },
    { url: withQuery.href, method: 'GET' },
  ];
  let answered = false;
  const problems: string[] = [];
  for (const attempt of attempts) {
    try {
      const res = await sendOutbound({ ...attempt, timeoutMs: ATTEMPT_TIMEOUT_MS }, options);
      if (res.status >= 200 && res.status < 300) {
        if (echoes(res.body, nonce)) return { outcome: 'echoed' };
        answered = true;
        problems.push(`${attempt.method} answered ${res.status} without the nonce`);
      } else {
        problems.push(`${attempt.method} answered ${res.status}`);
      }
    } catch (error) {
      if (error instanceof OutboundRefused) return { outcome: 'refused', detail: error.message };
      problems.push(`${attempt.method} failed: ${(error as Error).message}`);
    }
  }
  return answered ? { outcome: 'mismatch' } : { outcome: 'failed', detail: problems.join('; ') };
}
