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
