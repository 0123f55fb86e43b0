// Gives back the memory a burst left behind, once the service has gone quiet.
//
// V8 collects its old generation when it grows past a limit set from the live size at the previous
// collection. A burst (a post to a 10,000-member channel, thousands of sockets opening) raises both,
// and the garbage it leaves stays until the next collection, which a quiet service does not reach.
// Even a collection keeps the pages that a few survivors hold, unless it compacts them: after a
// fan-out to 10,000 sockets had ended, Node held 448 MiB RSS with 338 MB of V8's heap in use; a full
// collection left 71 MB in use but 337 MB of pages, and a compacting one gave them back (162 MiB
// RSS; 2026-11-27, docs/benchmarks.md). So once the event loop has been almost idle for a second and
// the heap holds 128 MiB more than the smallest seen since the last such collection, the service
// runs one compacting collection. Its pause (about 0.1 s) lands when nobody is waiting; an ordinary
// load does not grow the heap that far past its live size, because V8 collects first.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** How often the event loop is looked at. */
const CHECK_MS = 500;
/** Busy below this share of a check's time counts as quiet. */
const QUIET_UTILIZATION = 0.05;
/** Quiet checks in a row before collecting: a second. */
const QUIET_CHECKS = 2;
/** Heap grown past the smallest seen that is worth a collection. */
const GROWTH_BYTES = 128 * 1024 * 1024;

export interface HeapReading {
  /** Share of the last check's time the event loop was busy (0..1). */
  utilization: number;
  /** Bytes in use on V8's heap, garbage included. */
  usedBytes: number;
}

/**
 * Decides, check by check, when to collect. The baseline follows the smallest heap seen since the
 * last collection, which V8's own collections keep near the live size.
 */
export class IdleCollectionRule {
  private quietChecks = 0;
  private baselineBytes: number;

  constructor(initialUsedBytes: number) {
    this.baselineBytes = initialUsedBytes;
  }

  /** True when this check should collect. */
  check({ utilization, usedBytes }: HeapReading): boolean {
    this.baselineBytes = Math.min(this.baselineBytes, usedBytes);
    this.quietChecks = utilization < QUIET_UTILIZATION ? this.quietChecks + 1 : 0;
    return this.quietChecks >= QUIET_CHECKS && usedBytes - this.baselineBytes >= GROWTH_BYTES;
  }

  /** After a collection: what is in use now is the live size. */
  collected(usedBytes: number): void {
    this.baselineBytes = usedBytes;
    this.quietChecks = 0;
  }
}

/** Starts watching; returns a stop function. Does nothing when V8 offers no way to collect. */
export function startIdleCollector(): () => void {
  const collect = compactingCollection();
  if (!collect) return () => undefined;
  const used = () => v8.getHeapStatistics().used_heap_size;
  const rule = new IdleCollectionRule(used());
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    if (!rule.check({ utilization, usedBytes: used() })) return;
    collect();
    rule.collected(used());
    // The collection's own time is not load.
    last = performance.eventLoopUtilization();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A full collection that compacts every page. V8's `gc` is there when node runs with --expose-gc;
 * otherwise the flag is set now (v8.setFlagsFromString) and the function taken from a fresh
 * context, where V8 installs it for contexts made after the flag: the usual way to reach it without
 * a command-line flag, so `npm start`, the Dockerfile and the tests' service processes all get it.
 * Compaction is asked for around this one call only: V8's own collections stay as they were.
 */
export function compactingCollection(): (() => void) | null {
  let gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc');
  }
  if (typeof gc !== 'function') return null;
  const collect = gc as () => void;
  return () => {
    v8.setFlagsFromString('--compact-on-every-full-gc');
    try {
      collect();
    } finally {
      v8.setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}
