// The service gives back the memory a burst left (src/platform/idle-collector.ts): after a second of
// a mostly idle event loop, when the heap's pages come to 64 MiB more than the smallest seen, it runs one
// compacting collection, which returns the pages a few survivors would otherwise keep.
import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  compactingCollection,
  fullCollection,
  IdleCollectionRule,
  startIdleCollector,
} from '../../src/platform/idle-collector.js';

const MiB = 1024 * 1024;
const quiet = (heapMiB: number) => ({ utilization: 0.01, heapBytes: heapMiB * MiB });
const busy = (heapMiB: number) => ({ utilization: 0.6, heapBytes: heapMiB * MiB });

describe('IdleCollectionRule', () => {
  it('when a burst grew the heap and the loop then stays quiet for two checks, then it collects once', () => {
    const rule = new IdleCollectionRule(80 * MiB);
    expect(rule.check(busy(300))).toBe(false);
    expect(rule.check(busy(420))).toBe(false);
    expect(rule.check(quiet(420))).toBe(false);
    expect(rule.check(quiet(420))).toBe(true);
    rule.collected(90 * MiB);
    expect(rule.check(quiet(90))).toBe(false);
    expect(rule.check(quiet(90))).toBe(false);
  });

  it('when the loop is never quiet for two checks in a row, then it does not collect', () => {
    const rule = new IdleCollectionRule(80 * MiB);
    for (let i = 0; i < 10; i++) {
      expect(rule.check(quiet(400))).toBe(false);
      expect(rule.check(busy(400))).toBe(false);
    }
  });

  it('when idle sockets keep the loop 8% busy with their heartbeats, then that still counts as quiet', () => {
    const rule = new IdleCollectionRule(80 * MiB);
    const heartbeats = { utilization: 0.08, heapBytes: 400 * MiB };
    expect(rule.check(heartbeats)).toBe(false);
    expect(rule.check(heartbeats)).toBe(true);
  });

  it('when the heap grew less than 64 MiB past the smallest heap seen, then it does not collect', () => {
    const rule = new IdleCollectionRule(200 * MiB);
    // V8's own collection brought the heap down to 70 MiB: growth counts from there.
    expect(rule.check(busy(70))).toBe(false);
    expect(rule.check(quiet(120))).toBe(false);
    expect(rule.check(quiet(133))).toBe(false);
    expect(rule.check(quiet(135))).toBe(true);
  });
});

/** Two million small objects, of which the burst's caller keeps one in twenty. */
function burstKeepingOneInTwenty(): { n: number; s: string; list: number[] }[] {
  const burst: { n: number; s: string; list: number[] }[] = [];
  for (let i = 0; i < 2_000_000; i++) burst.push({ n: i, s: `item ${i}`, list: [i] });
  return burst.filter((_, i) => i % 20 === 0);
}

/** V8's heap pages now. */
const heapPages = () => process.memoryUsage().heapTotal;

// The figures are taken against what the process held before the burst: a jest worker may hold a
// large heap of its own from the files it ran before this one.
describe('compactingCollection', () => {
  it('when one object in twenty survives a burst, then the collection gives the other pages back', () => {
    const collect = compactingCollection();
    expect(collect).not.toBeNull();
    collect!();
    const base = heapPages();
    const survivors = burstKeepingOneInTwenty();
    const before = heapPages();
    collect!();
    const after = heapPages();
    expect(survivors).toHaveLength(100_000);
    // The survivors take about a twentieth of what the burst held; a collection that does not
    // compact keeps nearly every page (about 85% of them, measured in a plain script).
    expect(after - base).toBeLessThan((before - base) / 3);
  });
});

describe('startIdleCollector', () => {
  it('when a burst left pages that V8 emptied but kept, then the quiet service gives them back', async () => {
    compactingCollection()!();
    const base = heapPages();
    const stop = startIdleCollector();
    try {
      const survivors = burstKeepingOneInTwenty();
      // What V8's own collections do after a burst: the bytes in use fall, the pages stay.
      fullCollection()!();
      const { heapUsed, heapTotal: before } = process.memoryUsage();
      expect(heapUsed - base).toBeLessThan((before - base) / 2);
      let after = before;
      for (let waited = 0; waited < 10_000 && after - base >= (before - base) / 2; waited += 250) {
        await sleep(250);
        after = heapPages();
      }
      expect(survivors).toHaveLength(100_000);
      expect(after - base).toBeLessThan((before - base) / 2);
    } finally {
      stop();
    }
  });
});
