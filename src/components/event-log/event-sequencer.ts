// Numbers committed events into one global order, after their writers' transactions, and publishes
// each numbered round on the bus. A writer's transaction only creates its events (no lock on any
// user or channel, so posts never queue behind each other's notifications); the numbering happens
// here, in small transactions that take one lock, on the log's own node, and number every event
// committed since the last round at once. Rounds are therefore contiguous and committed in order:
// once an instance has seen position n, every event up to n is readable in the log, which is what
// makes a cursor replay exact.
//
// Writers call flush() after their commit and wait for it, so by the time a request answers, its
// events are numbered, published, settled (read-head.cypher) and readable by GET /v1/notifications. A failed round costs
// nothing but time: the events stay pending, and the sweep (every sweepMs, also at start-up after a
// crash) numbers them.
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Database } from '../../platform/neo4j/database.js';
import type { EventBus } from './event-bus.js';
import { hasPendingEvents, numberPendingEvents, settleHead } from './event-log-repository.js';

export interface SequencerOptions {
  /** How often to look for events nobody flushed (a writer that crashed after its commit). */
  sweepMs?: number;
  /** Events numbered per round at most; a full round is followed by another at once. */
  batch?: number;
}

export class EventSequencer {
  private current: Promise<void> | null = null;
  private waiting: Promise<void> | null = null;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;
  private readonly batch: number;

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    options: SequencerOptions = {},
  ) {
    this.batch = options.batch ?? 1000;
    this.timer = setInterval(() => void this.sweep(), options.sweepMs ?? 1000);
    this.timer.unref();
  }

  /**
   * Resolves once a round that started after this call has numbered and published everything
   * committed before it. Never rejects: a failure is logged and left to the sweep.
   */
  flush(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.waiting) return this.waiting;
    if (!this.current) return this.startRound();
    // The round in progress may have read the pending events before the caller's commit.
    const waiting = this.current.then(() => {
      this.waiting = null;
      return this.startRound();
    });
    this.waiting = waiting;
    return waiting;
  }

  /**
   * Numbers what nobody flushed, and settles a head left unsettled (a round, even an empty one,
   * settles the head before it); reads first, so an idle service writes nothing.
   */
  private async sweep(): Promise<void> {
    if (this.current || this.waiting) return;
    try {
      if (await hasPendingEvents(this.db)) await this.flush();
    } catch (error) {
      this.log.warn({ err: error }, 'Looking for unnumbered events failed');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.waiting;
    await this.current;
  }

  private startRound(): Promise<void> {
    const run = this.numberUntilDrained().finally(() => {
      if (this.current === run) this.current = null;
    });
    this.current = run;
    return run;
  }

  private async numberUntilDrained(): Promise<void> {
    try {
      for (;;) {
        const round = await numberPendingEvents(this.db, this.batch);
        if (round.events.length === 0) return;
        this.metrics.eventsNumbered.inc(round.events.length);
        await this.bus.publish(round);
        if (round.events.length < this.batch) {
          // Readers of the log (GET /v1/notifications, gap fills, the webhook planner) go up to
          // the settled head; the writer that flushed expects its events there when it answers.
          await settleHead(this.db);
          return;
        }
      }
    } catch (error) {
      this.log.warn({ err: error }, 'Numbering events failed; the sweep retries');
    }
  }
}
