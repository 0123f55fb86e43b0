// Waits between attempts that failed for a reason time may cure (the service restarting, a network
// change): exponential, capped, with jitter so that many clients dropped at once by one restart do
// not all come back in the same instant.

export interface BackoffOptions {
  /** The first wait, in milliseconds. Default 500. */
  initialDelayMs?: number | undefined;
  /** The longest wait, in milliseconds. Default 30 000. */
  maxDelayMs?: number | undefined;
}

export class Backoff {
  private failures = 0;
  private readonly initial: number;
  private readonly max: number;

  constructor(options: BackoffOptions = {}) {
    this.initial = Math.max(1, options.initialDelayMs ?? 500);
    this.max = Math.max(this.initial, options.maxDelayMs ?? 30_000);
  }

  /**
   * The wait before the next attempt: the ceiling doubles with each failure up to the cap, and the
   * wait is drawn between half the ceiling and the ceiling ("equal jitter").
   */
  next(): number {
    const ceiling = Math.min(this.max, this.initial * 2 ** Math.min(this.failures, 30));
    this.failures += 1;
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  /** After a success: the next failure waits the initial delay again. */
  reset(): void {
    this.failures = 0;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. The timer keeps the process alive. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** How often a wait polls the service's readiness (GET /readyz) while the service is away. */
export const READINESS_PROBE_MS = 500;

/**
 * Like pause(), but a service that went away is watched while waiting: GET /readyz every half
 * second, and the wait ends (after a short jitter, so that the bots one restart dropped do not all
 * come back in the same instant) as soon as the service answers ready again. `down` says the failure
 * that led here was the service's absence (no answer, 502–504): then the first ready answer ends the
 * wait; otherwise only one after a probe that found it not ready. A service that answers but refuses
 * (429, a closed socket) keeps the full back-off.
 */
export async function pauseUntilReady(
  ms: number,
  options: {
    baseUrl: string;
    down: boolean;
    signal?: AbortSignal | undefined;
    fetch?: typeof fetch | undefined;
  },
): Promise<void> {
  if (ms <= READINESS_PROBE_MS) return pause(ms, options.signal);
  const waiting = new AbortController();
  const abort = () => waiting.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  const probing = (async () => {
    let sawDown = options.down;
    const readyz = new URL('/readyz', options.baseUrl);
    const get = options.fetch ?? fetch;
    while (!waiting.signal.aborted) {
      await pause(READINESS_PROBE_MS, waiting.signal);
      if (waiting.signal.aborted) return;
      const ready = await get(readyz, {
        signal: AbortSignal.any([waiting.signal, AbortSignal.timeout(2000)]),
      }).then(
        async (answer) => {
          await answer.body?.cancel();
          return answer.status === 200;
        },
        () => false,
      );
      if (!ready) sawDown = true;
      else if (sawDown) {
        await pause(Math.random() * 250, waiting.signal);
        waiting.abort();
        return;
      }
    }
  })();
  await pause(ms, waiting.signal);
  waiting.abort();
  options.signal?.removeEventListener('abort', abort);
  await probing;
}
