// The event log's moving parts of one instance, started and stopped together: the bus (local or
// Redis), the sequencer that numbers committed events, the router that follows the log for this
// instance's sockets, and the pruner that drops events past their retention.
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Database } from '../../platform/neo4j/database.js';
import { createEventBus, type EventBus } from './event-bus.js';
import { pruneEvents, pruneLegacyNotifications } from './event-log-repository.js';
import { EventRouter } from './event-router.js';
import { EventSequencer } from './event-sequencer.js';
import type { CommittedEvent } from './event-log.js';

const PRUNE_EVERY_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 5000;

export interface EventLogServices {
  bus: EventBus;
  sequencer: EventSequencer;
  router: EventRouter;
  /**
   * Told of a change's events right after its commit, before they are numbered: a head start for
   * whoever will deliver them (the channel view, event-payloads.ts). A hint only: an event is
   * handed out through the router, whether or not anyone was told of it here.
   */
  committed: CommitNotices;
  /** Told where each post landed once its events are out (live typing ends there, src/components/live/). */
  landed: LandingNotices;
  /** Prunes once now (also runs hourly). */
  prune(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * What a writer read in its write for the delivery of its events: its messages as written, and
 * every member of the channels delivery asked about (CommitNotices.wantsMembers), at its commit.
 */
export interface WrittenForDelivery {
  messages: {
    id: string;
    content: string;
    parent_id: string | null;
    author: { uid: string; user_tag: string };
  }[];
  channelMembers: ReadonlyMap<string, readonly string[]>;
}

type CommitObserver = (events: readonly CommittedEvent[], seen: WrittenForDelivery | undefined) => void;

/** Observers of committed, unnumbered events; an observer that throws is not the writer's problem. */
export class CommitNotices {
  private readonly observers = new Set<CommitObserver>();
  private readonly membersWanted: ((channelId: string) => boolean)[] = [];

  constructor(private readonly log: Logger) {}

  /** `wantsMembers`: the channels whose members the observer would have a writer read for it. */
  observe(observer: CommitObserver, wantsMembers?: (channelId: string) => boolean): void {
    this.observers.add(observer);
    if (wantsMembers) this.membersWanted.push(wantsMembers);
  }

  /** Whether a writer putting messages in this channel should read its members for delivery. */
  wantsMembers(channelId: string): boolean {
    return this.membersWanted.some((wanted) => wanted(channelId));
  }

  tell(events: readonly CommittedEvent[], seen?: WrittenForDelivery): void {
    if (events.length === 0) return;
    for (const observer of this.observers) {
      try {
        observer(events, seen);
      } catch (error) {
        this.log.warn({ err: error }, 'A commit notice observer failed');
      }
    }
  }
}

/**
 * Where one post's messages landed: the messages they reply to, the channels they joined, and for
 * each new thread outside channels its conversation (every uid of it, the author's included, sorted).
 */
export interface PostLanding {
  uid: string;
  parent_ids: string[];
  channel_ids: string[];
  conversations: string[][];
}

/** Observers of landed posts; like CommitNotices, an observer that throws is not the poster's problem. */
export class LandingNotices {
  private readonly observers = new Set<(landing: PostLanding) => void>();

  constructor(private readonly log: Logger) {}

  observe(observer: (landing: PostLanding) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  tell(landing: PostLanding): void {
    for (const observer of this.observers) {
      try {
        observer(landing);
      } catch (error) {
        this.log.warn({ err: error }, 'A landing observer failed');
      }
    }
  }
}

export async function startEventLog(
  config: Config,
  db: Database,
  log: Logger,
  metrics: Metrics,
): Promise<EventLogServices> {
  const bus = await createEventBus(config, log);
  const sequencer = new EventSequencer(db, bus, log, metrics);
  const router = await EventRouter.start(db, bus, log);
  // Events of a crash before their numbering: number them now rather than at the first sweep.
  await sequencer.flush();

  const prune = async (): Promise<number> => {
    const before = new Date(Date.now() - config.realtime.eventRetentionDays * 86_400_000).toISOString();
    let total = 0;
    for (;;) {
      const pruned = await pruneEvents(db, before, PRUNE_BATCH);
      total += pruned;
      if (pruned < PRUNE_BATCH) break;
    }
    while ((await pruneLegacyNotifications(db, PRUNE_BATCH)) === PRUNE_BATCH);
    return total;
  };
  const pruning = setInterval(() => {
    prune().catch((error: unknown) => log.warn({ err: error }, 'Pruning the event log failed'));
  }, PRUNE_EVERY_MS);
  pruning.unref();

  return {
    bus,
    sequencer,
    router,
    committed: new CommitNotices(log),
    landed: new LandingNotices(log),
    prune,
    stop: async () => {
      clearInterval(pruning);
      await sequencer.stop();
      await router.stop();
      await bus.close();
    },
  };
}
