// The delivery rules without a server: the retry schedule and its jitter, Retry-After, and what each
// kind of answer means for a delivery.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  RETRY_SCHEDULE_MS,
  decideOutcome,
  parseRetryAfter,
  retryDelayMs,
  type AttemptResult,
} from '../../src/components/webhooks/delivery-policy.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const now = new Date('2026-11-22T10:00:00.000Z');
const middle = () => 0.5;

function answer(
  status: number,
  extra: Partial<Extract<AttemptResult, { kind: 'answer' }>> = {},
): AttemptResult {
  return { kind: 'answer', status, retryAfter: undefined, location: undefined, body: '', ...extra };
}

describe('the retry schedule', () => {
  it('when read, then it is the Standard Webhooks schedule after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    expect(RETRY_SCHEDULE_MS).toEqual([
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      14 * HOUR,
      20 * HOUR,
      24 * HOUR,
    ]);
    expect(MAX_ATTEMPTS).toBe(10);
  });

  it('when jitter is at its middle, then each delay is exactly its step', () => {
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      expect(retryDelayMs(attempt, middle)).toBe(RETRY_SCHEDULE_MS[attempt - 1]);
    }
  });

  it('when jitter is anywhere, then a delay stays within ±10% of its step and is never negative', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const step = RETRY_SCHEDULE_MS[attempt - 1]!;
          const delay = retryDelayMs(attempt, () => r)!;
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(step * 0.9));
          expect(delay).toBeLessThanOrEqual(Math.ceil(step * 1.1));
        },
      ),
    );
  });

  it('when the last attempt has failed, then there is no further delay', () => {
    expect(retryDelayMs(MAX_ATTEMPTS)).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  it('when given delta-seconds, then it answers them in milliseconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120 * SECOND);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('when given an HTTP date, then it answers the time until then', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:30 GMT', now)).toBe(90 * SECOND);
  });

  it('when the date is past, then it answers 0', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('when the value is beyond a day, then it is cut to a day', () => {
    expect(parseRetryAfter(String(10 * 24 * 3600), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Tue, 01 Dec 2026 10:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('when the value is missing or unreadable, then it is ignored', () => {
    for (const value of [
      undefined,
      '',
      '-5',
      '1.5',
      'soon',
      '2026-11-22T10:01:00Z',
      'Sun, 99 Foo 2026 GMT',
    ]) {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    }
  });
});

describe('decideOutcome', () => {
  it('when the endpoint answers 2xx, then the delivery is delivered', () => {
    for (const status of [200, 201, 204, 299]) {
      expect(decideOutcome(1, answer(status), now)).toEqual({ state: 'delivered', status, error: null });
    }
  });

  it('when the endpoint answers 500, then the next attempt waits the next step of the schedule', () => {
    const outcome = decideOutcome(1, answer(500, { body: 'boom' }), now, middle);
    expect(outcome).toEqual({ state: 'pending', status: 500, error: 'HTTP 500: boom', delayMs: 5 * SECOND });
    expect(decideOutcome(3, answer(502), now, middle)).toMatchObject({
      state: 'pending',
      delayMs: 30 * MINUTE,
    });
  });

  it('when the endpoint redirects, then it is a failure that names the target and is retried', () => {
    const outcome = decideOutcome(
      1,
      answer(301, { location: 'https://elsewhere.example/hook' }),
      now,
      middle,
    );
    expect(outcome).toMatchObject({ state: 'pending', status: 301, delayMs: 5 * SECOND });
    expect(outcome.error).toContain('https://elsewhere.example/hook');
    expect(outcome.error).toContain('not followed');
  });

  it('when the endpoint answers 410, then the delivery is disabled without a retry', () => {
    expect(decideOutcome(1, answer(410), now)).toEqual({ state: 'disabled', status: 410, error: 'HTTP 410' });
  });

  it('when a 429 asks for more time than the schedule gives, then the next attempt waits that long', () => {
    const outcome = decideOutcome(1, answer(429, { retryAfter: '60' }), now, middle);
    expect(outcome).toMatchObject({ state: 'pending', status: 429, delayMs: 60 * SECOND });
    const dated = decideOutcome(1, answer(503, { retryAfter: 'Sun, 22 Nov 2026 10:02:00 GMT' }), now, middle);
    expect(dated).toMatchObject({ state: 'pending', status: 503, delayMs: 2 * MINUTE });
  });

  it('when a 429 or 503 asks for less time than the schedule gives, then the schedule wins', () => {
    expect(decideOutcome(2, answer(429, { retryAfter: '1' }), now, middle)).toMatchObject({
      delayMs: 5 * MINUTE,
    });
    expect(decideOutcome(2, answer(503, { retryAfter: 'garbage' }), now, middle)).toMatchObject({
      delayMs: 5 * MINUTE,
    });
  });

  it('when another status carries Retry-After, then it is not honoured', () => {
    expect(decideOutcome(1, answer(500, { retryAfter: '600' }), now, middle)).toMatchObject({
      delayMs: 5 * SECOND,
    });
  });

  it('when the request fails or is refused, then it is retried on the schedule with the reason logged', () => {
    expect(decideOutcome(1, { kind: 'failed', error: 'No answer within 15000 ms.' }, now, middle)).toEqual({
      state: 'pending',
      status: null,
      error: 'No answer within 15000 ms.',
      delayMs: 5 * SECOND,
    });
    const refused = decideOutcome(1, { kind: 'refused', error: '127.0.0.1 is not allowed' }, now, middle);
    expect(refused).toMatchObject({ state: 'pending', status: null, delayMs: 5 * SECOND });
    expect(refused.error).toMatch(/^Refused: /);
  });

  it('when the tenth attempt fails, then the delivery has failed for good, even with a Retry-After', () => {
    expect(decideOutcome(MAX_ATTEMPTS, answer(500), now)).toEqual({
      state: 'failed',
      status: 500,
      error: 'HTTP 500',
    });
    expect(decideOutcome(MAX_ATTEMPTS, answer(429, { retryAfter: '5' }), now)).toMatchObject({
      state: 'failed',
    });
  });

  it('when a redelivery asked for by hand fails, then it is failed at once, whatever its attempt number; 2xx and 410 mean what they always do', () => {
    for (const attempt of [2, 11]) {
      expect(decideOutcome(attempt, answer(500), now, middle, true)).toEqual({
        state: 'failed',
        status: 500,
        error: 'HTTP 500',
      });
      expect(decideOutcome(attempt, answer(429, { retryAfter: '5' }), now, middle, true)).toMatchObject({
        state: 'failed',
      });
      expect(
        decideOutcome(attempt, { kind: 'failed', error: 'ECONNRESET' }, now, middle, true),
      ).toMatchObject({ state: 'failed' });
      expect(decideOutcome(attempt, answer(204), now, middle, true)).toMatchObject({ state: 'delivered' });
      expect(decideOutcome(attempt, answer(410), now, middle, true)).toMatchObject({ state: 'disabled' });
    }
  });

  it('when an answer body is long, then the logged error stays short', () => {
    const outcome = decideOutcome(1, answer(500, { body: 'x'.repeat(10_000) }), now, middle);
    expect(outcome.error!.length).toBeLessThanOrEqual(220);
  });
});
