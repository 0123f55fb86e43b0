// One per instance: follows the event log in its global order and hands each event to this
// instance's listeners (the feeds of open sockets and subscriptions) that follow its stream: a
// user's own events to that user's feeds, a channel's events to the feeds following that channel.
//
// Rounds arrive on the bus (from this instance's sequencer or, through Redis, another's) and may be
// lost or come out of order between instances; the router keeps `head`, the position up to which
// it has passed every event on, and reads any gap from the log before going on. It also polls the
// log's head, so a round lost with no successor behind it is still caught: within pollMs while
// rounds arrive, within idlePollMs on an instance that has heard nothing for a while. So every
// listener hears every event of its streams after its registration, once, in order.
import type { Logger } from '../../platform/logger.js';
import type { Database } from '../../platform/neo4j/database.js';
import type { EventBus } from './event-bus.js';
import type { LoggedEvent, SequencedRound } from './event-log.js';
import { listEventsInRange, readHead } from './event-log-repository.js';
import { BackoffPoll } from '../../platform/backoff-poll.js';

export interface EventListener {
  readonly uid: string;
  hear(event: LoggedEvent): void;
}

const GAP_PAGE = 500;
/**
 * The poll's longest interval on an instance that hears no rounds (BackoffPoll). A lost round
 * delays live delivery by up to this on such an instance, so it stays short.
 */
const IDLE_POLL_MS = 4_000;

export class EventRouter {
  /** Every event up to here has been passed on. */
  head = 0;
  private readonly byUser = new Map<string, Set<EventListener>>();
  private readonly byChannel = new Map<string, Set<EventListener>>();
  /** Listeners that hear every channel's events (a feed still learning its memberships). */
  private readonly everyChannel = new Set<EventListener>();
  private chain: Promise<void> = Promise.resolve();
  private readonly unsubscribe: () => void;
  private readonly poller: BackoffPoll;
  private stopped = false;

  private constructor(
    private readonly db: Database,
    bus: EventBus,
    private readonly log: Logger,
    pollMs: number,
  ) {
    this.unsubscribe = bus.subscribe((round) => {
      this.poller.activity();
      this.enqueue(() => this.apply(round));
    });
    this.poller = new BackoffPoll(
      // In the chain, like every step; a failure is logged there and counts as nothing found.
      () =>
        new Promise<boolean>((resolve) =>
          this.enqueue(() =>
            this.poll().then(
              (found) => resolve(found),
              (error: unknown) => {
                resolve(false);
                throw error;
              },
            ),
          ),
        ),
      { baseMs: pollMs, idleMs: Math.max(pollMs, IDLE_POLL_MS) },
    );
  }

  /** Starts following from the log's current head. */
  static async start(db: Database, bus: EventBus, log: Logger, pollMs = 1000): Promise<EventRouter> {
    const router = new EventRouter(db, bus, log, pollMs);
    const head = await readHead(db);
    // Rounds heard while reading the head are applied after it (the chain runs them in order).
    router.enqueue(() => {
      router.head = Math.max(router.head, head);
      return Promise.resolve();
    });
    await router.chain;
    return router;
  }

  /**
   * Registers a listener for its user's events and, until follow() says otherwise, every channel's.
   * Answers the head at registration: the listener hears every event after it. The router first
   * catches up with the log's settled head, so the answer covers every event whose write has
   * answered, on any instance, even when its round has not reached this router yet (a client that
   * connects after its post must not be handed that post as missed).
   */
  register(listener: EventListener): Promise<number> {
    const registered = this.chain.then(async () => {
      const head = await readHead(this.db);
      if (head > this.head) await this.fill(head);
      const set = this.byUser.get(listener.uid) ?? new Set();
      set.add(listener);
      this.byUser.set(listener.uid, set);
      this.everyChannel.add(listener);
      return this.head;
    });
    // The caller hears a failure; the chain goes on either way.
    this.chain = registered.then(
      () => undefined,
      () => undefined,
    );
    return registered;
  }

  /** From now on the listener hears only these channels' events (besides its user's). */
  followChannels(listener: EventListener, channelIds: Iterable<string>): void {
    this.everyChannel.delete(listener);
    for (const channelId of channelIds) this.follow(listener, channelId);
  }

  follow(listener: EventListener, channelId: string): void {
    const set = this.byChannel.get(channelId) ?? new Set();
    set.add(listener);
    this.byChannel.set(channelId, set);
  }

  unfollow(listener: EventListener, channelId: string): void {
    const set = this.byChannel.get(channelId);
    set?.delete(listener);
    if (set?.size === 0) this.byChannel.delete(channelId);
  }

  unregister(listener: EventListener, channelIds: Iterable<string>): void {
    const set = this.byUser.get(listener.uid);
    set?.delete(listener);
    if (set?.size === 0) this.byUser.delete(listener.uid);
    this.everyChannel.delete(listener);
    for (const channelId of channelIds) this.unfollow(listener, channelId);
  }

  /** The users with a listener here that follows the channel's stream. */
  listenersOf(channelId: string): string[] {
    return [...(this.byChannel.get(channelId) ?? [])].map((listener) => listener.uid);
  }

  /** How many listeners here follow the channel's stream (listenersOf without the list). */
  listenerCount(channelId: string): number {
    return this.byChannel.get(channelId)?.size ?? 0;
  }

  /**
   * Runs `step` once everything heard so far has been passed on: live news (typing, streamed chunks)
   * goes out in the same order as the rounds heard before it, so a member whose removal has been
   * passed on is no longer followed when the news is handed out.
   */
  inOrder(step: () => void): void {
    this.enqueue(() => {
      step();
      return Promise.resolve();
    });
  }

  /** Waits until everything heard so far has been passed on (tests, shutdown). */
  settled(): Promise<void> {
    return this.chain;
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.poller.stop();
    this.unsubscribe();
    return this.chain;
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((error: unknown) => {
      this.log.warn({ err: error }, 'Following the event log failed; the next poll retries');
    });
  }

  private async apply(round: SequencedRound): Promise<void> {
    if (this.stopped || round.to <= this.head) return;
    if (round.from > this.head) await this.fill(round.from);
    for (const event of round.events) if (event.seq > this.head) this.pass(event);
  }

  /** Reads the log's head and fills any gap; answers whether there was one. */
  private async poll(): Promise<boolean> {
    if (this.stopped) return false;
    const head = await readHead(this.db);
    if (head <= this.head) return false;
    await this.fill(head);
    return true;
  }

  /** Passes on every event up to `upto` from the log. */
  private async fill(upto: number): Promise<void> {
    while (this.head < upto && !this.stopped) {
      const page = await listEventsInRange(this.db, this.head, upto, GAP_PAGE);
      if (page.length === 0) {
        // Pruned before anyone here read it: nothing left to pass on.
        this.log.warn({ after: this.head, upto }, 'Events missing from the log');
        this.head = upto;
        return;
      }
      for (const event of page) if (event.seq > this.head) this.pass(event);
    }
  }

  private pass(event: LoggedEvent): void {
    this.head = event.seq;
    if (event.uid !== null) {
      for (const listener of this.byUser.get(event.uid) ?? []) listener.hear(event);
      return;
    }
    if (event.channel_id === null) return;
    const skip = new Set(event.skip_uids);
    const heard = new Set<EventListener>();
    for (const listener of [...(this.byChannel.get(event.channel_id) ?? []), ...this.everyChannel]) {
      if (heard.has(listener) || skip.has(listener.uid)) continue;
      heard.add(listener);
      listener.hear(event);
    }
  }
}
