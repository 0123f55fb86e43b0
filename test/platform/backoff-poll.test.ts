// The poll behind the service's background loops (event sequencer, event router, webhook
// dispatcher): it backs off while it finds nothing and comes back at once on activity.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { BackoffPoll } from '../../src/platform/backoff-poll.js';

describe('BackoffPoll', () => {
  let poll: BackoffPoll | undefined;
  afterEach(() => {
    poll?.stop();
    jest.useRealTimers();
  });

  /** Runs the fake clock forward by `ms`, letting each poll's promise settle as it goes. */
  async function advance(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= 100) await jest.advanceTimersByTimeAsync(100);
  }

  it('when polls find nothing, then each waits twice as long as the one before, up to idleMs', async () => {
    jest.useFakeTimers();
    const at: number[] = [];
    const start = Date.now();
    poll = new BackoffPoll(
      () => {
        at.push(Date.now() - start);
        return Promise.resolve(false);
      },
      { baseMs: 1_000, idleMs: 4_000 },
    );
    await advance(20_000);
    expect(at).toEqual([1_000, 3_000, 7_000, 11_000, 15_000, 19_000]);
  });

  it('when a poll finds something, then the next comes after baseMs again', async () => {
    jest.useFakeTimers();
    const at: number[] = [];
    const start = Date.now();
    poll = new BackoffPoll(
      () => {
        at.push(Date.now() - start);
        return Promise.resolve(at.length === 3);
      },
      { baseMs: 1_000, idleMs: 8_000 },
    );
    await advance(12_000);
    // 1 s, then 2 and 4 s apart; the third found something, so the fourth is 1 s after it.
    expect(at).toEqual([1_000, 3_000, 7_000, 8_000, 10_000]);
  });

  it('when activity is reported during a long wait, then the next poll comes within baseMs and the backing off starts over', async () => {
    jest.useFakeTimers();
    const at: number[] = [];
    const start = Date.now();
    poll = new BackoffPoll(
      () => {
        at.push(Date.now() - start);
        return Promise.resolve(false);
      },
      { baseMs: 1_000, idleMs: 16_000 },
    );
    await advance(15_000); // polls at 1, 3, 7 and 15 s; the next would be at 31 s
    poll.activity();
    await advance(3_500);
    expect(at).toEqual([1_000, 3_000, 7_000, 15_000, 16_000, 18_000]);
  });

  it('when the poll fails, then it counts as having found nothing and the polls go on', async () => {
    jest.useFakeTimers();
    let calls = 0;
    poll = new BackoffPoll(
      () => {
        calls += 1;
        return Promise.reject(new Error('database away'));
      },
      { baseMs: 1_000, idleMs: 2_000 },
    );
    await advance(7_000);
    expect(calls).toBe(4); // at 1, 3, 5 and 7 s
  });
});
