// A poll that looks often while there is something to find and seldom while there is not.
//
// The service polls the database for what its messages may have missed (unnumbered events, a round
// lost between instances, webhook retries that came due). Each poll is a statement, and three of them
// a second were most of an idle service's CPU. So a poll that finds nothing waits twice as long
// before the next, up to `idleMs`; one that finds something, or any sign of activity (activity()),
// brings it back to `baseMs` at once. A busy service polls as before; an idle one almost never.

export interface BackoffPollOptions {
  /** The interval while there is work. */
  baseMs: number;
  /** The longest interval, reached after polls that found nothing. */
  idleMs: number;
}

export class BackoffPoll {
  private intervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private dueAt = 0;
  /** activity() since the current poll started: it counts as found. */
  private sawActivity = false;
  private stopped = false;
  private readonly baseMs: number;
  private readonly idleMs: number;

  /** `poll` answers whether it found something; a failed poll counts as having found nothing. */
  constructor(
    private readonly poll: () => Promise<boolean>,
    options: BackoffPollOptions,
  ) {
    this.baseMs = options.baseMs;
    this.idleMs = Math.max(options.idleMs, options.baseMs);
    this.intervalMs = this.baseMs;
    this.schedule(this.baseMs);
  }

  /** Something happened: the next poll comes within baseMs, and the backing off starts over. */
  activity(): void {
    this.sawActivity = true;
    this.intervalMs = this.baseMs;
    if (this.dueAt - Date.now() > this.baseMs) this.schedule(this.baseMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = Date.now() + delayMs;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    // Never the reason a process stays alive; stop() clears it anyway.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.sawActivity = false;
    const found = await this.poll().catch(() => false);
    this.intervalMs = found || this.sawActivity ? this.baseMs : Math.min(this.intervalMs * 2, this.idleMs);
    // activity() during the poll may have scheduled the next one already.
    if (this.timer === null) this.schedule(this.intervalMs);
  }
}
