// The rules of webhook delivery as pure functions: what an attempt's outcome means for the delivery
// (delivered, retry later, give up, endpoint gone), the Standard Webhooks retry schedule with jitter,
// and Retry-After. The dispatcher only carries these decisions out; tests check them directly.

/**
 * Delay before attempt n+1 after attempt n failed (index n-1): the Standard Webhooks schedule. The
 * first attempt is "at once" (the delivery is due when it is created); after the tenth it is failed.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, // 5 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  5 * 3_600_000, // 5 h
  10 * 3_600_000, // 10 h
  14 * 3_600_000, // 14 h
  20 * 3_600_000, // 20 h
  24 * 3_600_000, // 24 h
];

/** The first attempt and one per step of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** ±10% around each step, so that many deliveries failing together do not retry together. */
export const JITTER_RATIO = 0.1;

/** A Retry-After further away than this is cut to it: a day is the longest step of the schedule. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export type AttemptResult =
  | {
      kind: 'answer';
      status: number;
      retryAfter: string | undefined;
      location: string | undefined;
      body: string;
    }
  | { kind: 'refused'; error: string }
  | { kind: 'failed'; error: string };

export type Outcome =
  | { state: 'delivered'; status: number; error: null }
  /** Try again after `delayMs`. */
  | { state: 'pending'; status: number | null; error: string; delayMs: number }
  /** The schedule is used up. */
  | { state: 'failed'; status: number | null; error: string }
  /** 410 Gone: the endpoint is turned off until its owner verifies it again. */
  | { state: 'disabled'; status: number; error: string };

/** The delay after failed attempt number `attempt` (1-based), jittered; null when none is left. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const step = RETRY_SCHEDULE_MS[attempt - 1];
  if (step === undefined) return null;
  const factor = 1 + JITTER_RATIO * (2 * random() - 1);
  return Math.max(0, Math.round(step * factor));
}

/**
 * Retry-After as milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110 §10.2.3). A date in
 * the past is 0; anything unreadable is undefined (ignored); beyond a day is cut to a day.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // HTTP dates always name the weekday and GMT; Date.parse alone would accept far looser text.
    if (!/^[A-Za-z]{3},\s.+\sGMT$/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now.getTime();
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** A short, bounded description of what went wrong, for the delivery log. */
function describe(result: AttemptResult): string {
  if (result.kind === 'refused') return `Refused: ${result.error}`.slice(0, 300);
  if (result.kind === 'failed') return result.error.slice(0, 300);
  if (result.status >= 300 && result.status < 400) {
    const to = result.location ? ` to ${result.location}` : '';
    return `Redirect${to} (HTTP ${result.status}); redirects are not followed.`.slice(0, 300);
  }
  const body = result.body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return body ? `HTTP ${result.status}: ${body}` : `HTTP ${result.status}`;
}

/**
 * What attempt number `attempt` (1-based) means for its delivery. 2xx is delivered; 410 turns the
 * endpoint off; anything else (3xx included, network errors, time-outs, refused addresses) is retried
 * on the schedule. On 429 and 503 a Retry-After later than the schedule's step is honoured; an
 * earlier one is not, so a receiver cannot make Skein retry faster than the schedule. A redelivery
 * asked for by hand is a single attempt: whatever would be retried is `failed` at once (the caller
 * sees the answer in the log and may ask again).
 */
export function decideOutcome(
  attempt: number,
  result: AttemptResult,
  now: Date,
  random: () => number = Math.random,
  redelivery = false,
): Outcome {
  if (result.kind === 'answer' && result.status >= 200 && result.status < 300) {
    return { state: 'delivered', status: result.status, error: null };
  }
  const status = result.kind === 'answer' ? result.status : null;
  const error = describe(result);
  if (status === 410) return { state: 'disabled', status, error };
  const step = redelivery ? null : retryDelayMs(attempt, random);
  if (step === null) return { state: 'failed', status, error };
  let delay = step;
  if (result.kind === 'answer' && (status === 429 || status === 503)) {
    const asked = parseRetryAfter(result.retryAfter, now);
    if (asked !== undefined) delay = Math.max(delay, asked);
  }
  return { state: 'pending', status, error, delayMs: delay };
}
