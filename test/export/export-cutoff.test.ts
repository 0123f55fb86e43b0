// exportCutoff(now, days): the default cutoff is yesterday 16:00 America/New_York on both sides of
// the 2026 daylight-saving changes (EDT from Sunday 2026-03-08 02:00, EST again from Sunday
// 2026-11-01 02:00); with `days` it is exactly days × 24 h earlier. Expectations are worked out by
// hand: 16:00 EST = 21:00Z, 16:00 EDT = 20:00Z.
import { describe, expect, it } from '@jest/globals';
import { exportCutoff } from '../../src/components/export/export-cutoff.js';

const cutoffAt = (now: string, days: number | null = null) => exportCutoff(new Date(now), days).toISOString();

describe('default cutoff across daylight saving', () => {
  it('when now is the afternoon DST starts (Mar 8, 16:00 EDT), then yesterday 16:00 was still EST (21:00Z)', () => {
    expect(cutoffAt('2026-03-08T20:00:00.000Z')).toBe('2026-03-07T21:00:00.000Z');
  });

  it('when now is the day after DST starts (Mar 9, 16:00 EDT), then yesterday 16:00 was EDT (20:00Z)', () => {
    expect(cutoffAt('2026-03-09T20:00:00.000Z')).toBe('2026-03-08T20:00:00.000Z');
  });

  it('when now is the afternoon DST ends (Nov 1, 15:00 EST), then yesterday 16:00 was still EDT (20:00Z)', () => {
    expect(cutoffAt('2026-11-01T20:00:00.000Z')).toBe('2026-10-31T20:00:00.000Z');
  });

  it('when now is the day after DST ends (Nov 2, 15:00 EST), then yesterday 16:00 was EST (21:00Z)', () => {
    expect(cutoffAt('2026-11-02T20:00:00.000Z')).toBe('2026-11-01T21:00:00.000Z');
  });

  it('when it is already tomorrow in UTC but still today in New York, then "yesterday" is New York’s', () => {
    // 2026-03-09T03:00Z is 2026-03-08 23:00 EDT: yesterday there is March 7 (EST).
    expect(cutoffAt('2026-03-09T03:00:00.000Z')).toBe('2026-03-07T21:00:00.000Z');
  });

  it('when now is before 16:00 in New York, then the cutoff is still yesterday’s 16:00, not today’s', () => {
    // 2026-07-15T12:00Z is 08:00 EDT on July 15.
    expect(cutoffAt('2026-07-15T12:00:00.000Z')).toBe('2026-07-14T20:00:00.000Z');
  });
});

describe('cutoff with days', () => {
  it('when days is given, then the cutoff is exactly days × 24 hours before now, DST or not', () => {
    expect(cutoffAt('2026-03-09T20:00:00.000Z', 1)).toBe('2026-03-08T20:00:00.000Z');
    expect(cutoffAt('2026-03-09T12:34:56.789Z', 2)).toBe('2026-03-07T12:34:56.789Z');
    expect(cutoffAt('2026-11-22T10:00:00.000Z', 3650)).toBe('2016-11-24T10:00:00.000Z');
  });
});
