// Numbers committed events into one global order, after their writers' transactions, and publishes
// each numbered round on the bus. A writer's transaction only creates its events (no lock on any
// user or channel, so posts never queue behind each other's notifications); the numbering happens
// here, in small transactions that take one lock, on the log's own node, and number every event
// committed since the last round at once. Rounds are therefore contiguous and committed in order:
// once an instance has seen position n, every event up to n is readable in the log, which is what
// makes a cursor replay exact.
//
// Writers call flush() after their commit and wait for it, so by the time a request answers, its
// events are numbered, published, settled (read-head.cypher) and readable by GET /v1/notifications.
// A round's head is settled by the next round's numbering statement, or by a settle statement of
// its own when no writer waits for a next round: under load that is one statement per round, not
// two. A failed round costs nothing but time: the events stay pending, and the sweep (within
// sweepMs of the failure; at start-up after a crash; seldom on an idle service) numbers them.
//
// A post that is the only one writing on this instance, with no round running, numbers its events
// in its own write statement instead (a round in all but name, messages/write-post.cypher) and
// publishes that round after its commit: its listeners hear it a round trip and a commit sooner
// (2026-11-28: that statement took 5-16 ms of a 100-member fan-out's 28 ms beside Synapse). The
// log's lock it then holds until its commit queues nobody here. Posts that overlap leave numbering
// to the rounds, which take many at once, so concurrent posts still never queue behind each other.
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Database } from '../../platform/neo4j/database.js';
import type { EventBus } from './event-bus.js';
import type { SequencedRound } from './event-log.js';
import { hasPendingEvents, numberPendingEvents, settleHead } from './event-log-repository.js';
import { BackoffPoll } from '../../platform/backoff-poll.js';

/**
 * The sweep's longest interval: unflushed events are a writer that crashed after its commit, and
 * the next flush on any instance numbers them anyway, so an idle service looks only now and then.
 */
const IDLE_SWEEP_MS = 16_000;

export interface SequencerOptions {
  /** How often to look for events nobody flushed (a writer that crashed after its commit). */
  sweepMs?: number;
  /** The sweep's interval once several sweeps in a row found nothing (see BackoffPoll). */
  idleSweepMs?: number;
  /** Events numbered per round at most; a full round is followed by another at once. */
  batch?: number;
}

export class EventSequencer {
  /** Rounds started so far (this instance's count, not log positions). */
  private started = 0;
  /** The latest round a waiting flush needs; the rounds go on until it has started. */
  private wanted = 0;
  /** Each waiting flush: the round whose settling it waits for. */
  private waiters: { round: number; resolve: () => void }[] = [];
  private running: Promise<void> | null = null;
  /** Posts between their first statement and their commit on this instance (see writing()). */
  private writers = 0;
  private stopped = false;
  private readonly sweeper: BackoffPoll;
  private readonly batch: number;

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    options: SequencerOptions = {},
  ) {
    this.batch = options.batch ?? 1000;
    const sweepMs = options.sweepMs ?? 1000;
    this.sweeper = new BackoffPoll(() => this.sweep(), {
      baseMs: sweepMs,
      idleMs: options.idleSweepMs ?? Math.max(sweepMs, IDLE_SWEEP_MS),
    });
  }

  /**
   * Resolves once a round that started after this call has numbered, published and settled
   * everything committed before it. Never rejects: a failure is logged and left to the sweep.
   */
  flush(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // A round in progress may have read the pending events before the caller's commit: the next.
    const round = this.started + 1;
    this.wanted = Math.max(this.wanted, round);
    const settled = new Promise<void>((resolve) => this.waiters.push({ round, resolve }));
    this.running ??= this.run();
    return settled;
  }

  /** Runs a post's write transaction, counted among the writers that ownRoundLimit() looks at. */
  async writing<T>(work: () => Promise<T>): Promise<T> {
    this.writers++;
    try {
      return await work();
    } finally {
      this.writers--;
    }
  }

  /**
   * How many events a post inside writing() may number in its own statement: the round's batch
   * when it is the only post writing here and no round runs, otherwise 0 (the rounds number them).
   */
  ownRoundLimit(): number {
    return this.writers === 1 && this.running === null && !this.stopped ? this.batch : 0;
  }

  /**
   * Publishes a round a post numbered in its own transaction, once that has committed. Never
   * rejects: a round the bus loses is read from the log by each router's next round or poll.
   */
  async publishOwn(round: SequencedRound): Promise<void> {
    if (round.events.length === 0) return;
    this.metrics.eventsNumbered.inc(round.events.length);
    try {
      await this.bus.publish(round);
    } catch (error) {
      this.log.warn({ err: error }, "Publishing a post's own round failed; routers read it from the log");
    }
  }

  /**
   * Numbers what nobody flushed, and settles a head left unsettled (a round, even an empty one,
   * settles the head before it); reads first, so an idle service writes nothing. Answers whether
   * it found any.
   */
  private async sweep(): Promise<boolean> {
    if (this.running) return true;
    try {
      if (!(await hasPendingEvents(this.db))) return false;
      await this.flush();
      return true;
    } catch (error) {
      this.log.warn({ err: error }, 'Looking for unnumbered events failed');
      return false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sweeper.stop();
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      while (this.wanted > this.started) {
        const round = ++this.started;
        const numbered = await numberPendingEvents(this.db, this.batch);
        // Its statement settled the head that the round before it wrote.
        this.settled(round - 1);
        if (numbered.events.length === 0) {
          // Nothing numbered: the head is the one it just settled.
          this.settled(round);
          continue;
        }
        this.metrics.eventsNumbered.inc(numbered.events.length);
        await this.bus.publish(numbered);
        // A full round is followed by another at once, as is one that a writer waits to follow;
        // either's numbering settles this one.
        if (numbered.events.length === this.batch) this.wanted = Math.max(this.wanted, round + 1);
        if (this.wanted > round) continue;
        // Readers of the log (GET /v1/notifications, gap fills, the webhook planner) go up to
        // the settled head; the writers that flushed expect their events there when they answer.
        await settleHead(this.db);
        this.settled(round);
      }
    } catch (error) {
      this.log.warn({ err: error }, 'Numbering events failed; the sweep retries');
      this.sweeper.activity();
      // Every waiting flush goes, even one that wanted a later round: none may hang on a loop that
      // stops here, and what they committed is left to the sweep.
      this.wanted = this.started;
      this.settled(Number.POSITIVE_INFINITY);
    } finally {
      // In the same step as the loop's last check, so no flush() can slip between the two and wait
      // on a loop that has ended.
      this.running = null;
    }
  }

  /** Lets go of the flushes that waited for this round or an earlier one. */
  private settled(round: number): void {
    if (this.waiters.length === 0) return;
    const waiting: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (waiter.round <= round) waiter.resolve();
      else waiting.push(waiter);
    }
    this.waiters = waiting;
  }
}
