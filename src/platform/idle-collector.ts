// Gives back the memory a burst left behind, once the service has gone quiet.
//
// V8 collects its old generation when it grows past a limit set from the live size at the previous
// collection. A burst (a post to a 10,000-member channel, thousands of sockets opening) raises both,
// and the garbage it leaves stays until the next collection, which a quiet service does not reach.
// Even a collection keeps the pages that a few survivors hold, unless it compacts them: after a
// fan-out to 10,000 sockets had ended, Node held 448 MiB RSS with 338 MB of V8's heap in use; a full
// collection left 71 MB in use but 337 MB of pages, and a compacting one gave them back (162 MiB
// RSS; 2026-11-27, docs/benchmarks.md). So once the event loop has been mostly idle for a second and
// the heap's pages (what V8 holds from the system, in use or not) come to 64 MiB more than the
// smallest seen since the last such collection, the service runs one compacting collection. It
// judges the pages, not the bytes in use: after 10,000 sockets had opened on the heels of a fan-out,
// V8's own collections had brought the bytes in use down to 160 MB but kept 317 MB of pages. Its
// pause (0.1-0.3 s) lands when nobody is waiting. 64 MiB rather than 128: right after 2,000 posts
// at 16 in flight Node held 93-115 MiB with less growth allowed against 140-206 (a probe,
// 2026-11-28); a collection after a smaller burst costs a pause nobody waits for.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Logger } from './logger.js';

/** How often the event loop is looked at. */
const CHECK_MS = 500;
/**
 * Busy below this share of a check's time counts as quiet. Not near zero: 10,000 idle sockets keep
 * the loop 5-10% busy with their heartbeats (a ping and a credential re-check each 30 s), and they
 * are the service that most needs the memory back.
 */
const QUIET_UTILIZATION = 0.15;
/** Quiet checks in a row before collecting: a second. */
const QUIET_CHECKS = 2;
/** Heap grown past the smallest seen that is worth a collection. */
const GROWTH_BYTES = 64 * 1024 * 1024;

export interface HeapReading {
  /** Share of the last check's time the event loop was busy (0..1). */
  utilization: number;
  /** Bytes of pages V8's heap holds, in use (garbage included) or free. */
  heapBytes: number;
}

/**
 * Decides, check by check, when to collect. The baseline follows the smallest heap seen since the
 * last collection: what the live objects need, with V8's usual slack.
 */
export class IdleCollectionRule {
  private quietChecks = 0;
  private baselineBytes: number;

  constructor(initialHeapBytes: number) {
    this.baselineBytes = initialHeapBytes;
  }

  /** True when this check should collect. */
  check({ utilization, heapBytes }: HeapReading): boolean {
    this.baselineBytes = Math.min(this.baselineBytes, heapBytes);
    this.quietChecks = utilization < QUIET_UTILIZATION ? this.quietChecks + 1 : 0;
    return this.quietChecks >= QUIET_CHECKS && heapBytes - this.baselineBytes >= GROWTH_BYTES;
  }

  /** After a collection: the heap it left is what the live objects need. */
  collected(heapBytes: number): void {
    this.baselineBytes = heapBytes;
    this.quietChecks = 0;
  }
}

/**
 * Starts watching; returns a stop function. Does nothing when V8 offers no way to collect. Each
 * collection is logged, so an operator can tell its pause from a stall.
 */
export function startIdleCollector(log?: Logger): () => void {
  const collect = compactingCollection();
  if (!collect) return () => undefined;
  const heap = () => v8.getHeapStatistics().total_heap_size;
  const rule = new IdleCollectionRule(heap());
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    const before = heap();
    if (!rule.check({ utilization, heapBytes: before })) return;
    const began = performance.now();
    collect();
    const after = heap();
    rule.collected(after);
    log?.info(
      { heap_before_mib: mib(before), heap_after_mib: mib(after), ms: Math.round(performance.now() - began) },
      'gave back the memory a burst left',
    );
    // The collection's own time is not load.
    last = performance.eventLoopUtilization();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

const mib = (bytes: number) => Math.round(bytes / (1024 * 1024));

/**
 * V8's full collection, as its own run (no compaction asked for). `gc` is there when node runs with
 * --expose-gc; otherwise the flag is set now (v8.setFlagsFromString) and the function taken from a
 * fresh context, where V8 installs it for contexts made after the flag: the usual way to reach it
 * without a command-line flag, so `npm start`, the Dockerfile and the tests' service processes all
 * get it.
 */
export function fullCollection(): (() => void) | null {
  let gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc');
  }
  return typeof gc === 'function' ? (gc as () => void) : null;
}

/**
 * A full collection that compacts every page. Compaction is asked for around this one call only:
 * V8's own collections stay as they were.
 */
export function compactingCollection(): (() => void) | null {
  const collect = fullCollection();
  if (!collect) return null;
  return () => {
    v8.setFlagsFromString('--compact-on-every-full-gc');
    try {
      collect();
    } finally {
      v8.setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}
