// Measuring helpers: percentiles of latency samples, and a closed-loop pool that keeps N operations
// in flight for a while (how the database limits are driven: the same concurrency autocannon uses).

/** The p-th percentile (0–100) of the samples, nearest-rank; NaN without samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface Measured {
  /** Operations completed per second over the measured window. */
  opsPerSec: number;
  /** Units (messages, deliveries...) per second: ops × units per op. */
  unitsPerSec: number;
  p50: number;
  p99: number;
  count: number;
  errors: number;
  seconds: number;
  /** The first error's message, to tell why a run failed. */
  firstError?: string;
  /** The latency samples (ms), kept so that runs in parts can be merged. */
  samples: number[];
  units: number;
}

export function summarize(latencies: number[], units: number, errors: number, seconds: number): Measured {
  return {
    opsPerSec: latencies.length / seconds,
    unitsPerSec: units / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count: latencies.length,
    errors,
    seconds,
    samples: latencies,
    units,
  };
}

/**
 * One result from a measurement taken in parts (Skein and its limit alternate, so that a passing
 * disturbance on a shared machine does not land on one side only).
 */
export function merge(parts: Measured[]): Measured {
  const sum = (pick: (p: Measured) => number) => parts.reduce((total, p) => total + pick(p), 0);
  const merged = summarize(
    parts.flatMap((p) => p.samples),
    sum((p) => p.units),
    sum((p) => p.errors),
    sum((p) => p.seconds),
  );
  const firstError = parts.find((p) => p.firstError)?.firstError;
  return firstError === undefined ? merged : { ...merged, firstError };
}

/**
 * Runs `operation` with `concurrency` workers for `seconds` (after `warmupOps` unmeasured calls per
 * worker); each call answers how many units it did (e.g. messages written). `startAt` numbers the
 * first iteration (a measurement in parts continues the sequence).
 */
export async function runPool(
  operation: (worker: number, iteration: number) => Promise<number>,
  options: { concurrency: number; seconds: number; warmupOps?: number; startAt?: number },
): Promise<Measured> {
  const warmup = options.warmupOps ?? 2;
  let iteration = options.startAt ?? 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      for (let i = 0; i < warmup; i++) await operation(worker, iteration++).catch(() => 0);
    }),
  );
  const latencies: number[] = [];
  let units = 0;
  let errors = 0;
  let firstError: string | undefined;
  const began = performance.now();
  const deadline = began + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          // Not `units += await …`: that would read `units` before the await and lose other workers' adds.
          const done = await operation(worker, iteration++);
          units += done;
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors++;
          firstError ??= (error as Error).message;
        }
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  const measured = summarize(latencies, units, errors, seconds);
  return firstError === undefined ? measured : { ...measured, firstError };
}

export interface Paced {
  /** Operations answered, and their latencies (ms). */
  latencies: number[];
  errors: number;
  firstError?: string;
  /** Ticks skipped because `maxInFlight` operations were still running. */
  skipped: number;
  seconds: number;
}

/**
 * Starts `operation` every 1000 / perSecond ms, without waiting for the ones before (a client with
 * its own pace, not a closed loop), at most `maxInFlight` at once, until `stop()`; stop (once or
 * again) waits for those in flight and answers what they did.
 */
export function atRate(
  perSecond: number,
  operation: (iteration: number) => Promise<unknown>,
  maxInFlight = 8,
): { stop: () => Promise<Paced> } {
  const interval = 1000 / perSecond;
  const inFlight = new Set<Promise<void>>();
  const result: Paced = { latencies: [], errors: 0, skipped: 0, seconds: 0 };
  let stopped = false;
  const began = performance.now();
  const ticking = (async () => {
    for (let i = 0; !stopped; i++) {
      const wait = began + i * interval - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (stopped) break;
      if (inFlight.size >= maxInFlight) {
        result.skipped++;
        continue;
      }
      const t0 = performance.now();
      const running = operation(i).then(
        () => void result.latencies.push(performance.now() - t0),
        (error: unknown) => {
          result.errors++;
          result.firstError ??= (error as Error).message;
        },
      );
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running));
    }
  })();
  let stopping: Promise<Paced> | null = null;
  return {
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        await ticking;
        await Promise.all(inFlight);
        result.seconds = (performance.now() - began) / 1000;
        return result;
      })()),
  };
}
