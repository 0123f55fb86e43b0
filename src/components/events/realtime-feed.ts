// The one "replay, then live, without gaps or repeats" for both socket transports (/v1/ws/v1 and
// the GraphQL subscription). A feed hands out one user's events in the log's global order, each
// once, each with the cursor to resume after it.
//
// How: the feed registers with this instance's event router, which answers its head H and from then
// on passes the feed every later event of the user's own stream and (once the feed knows them) of
// the user's channels' streams, in order. Everything up to H is in the log, so a replay reads the
// log from the client's cursor up to H, then goes on with what the router passed meanwhile. Until
// the feed has read the user's memberships it hears every channel's events and sorts them out when
// the memberships arrive; membership events keep the set current afterwards. What an event shows
// is built when it is handed out (event-payloads.ts); one that shows nothing moves the cursor on
// silently.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { encodeCursor, type LoggedEvent } from '../event-log/event-log.js';
import { listEventsForUser } from '../event-log/event-log-repository.js';
import type { EventListener } from '../event-log/event-router.js';
import {
  ChangeFilter,
  asDelivered,
  buildClientEvent,
  judgeChannelEventsAhead,
  judgeTogether,
  type SharedJudgement,
} from './event-payloads.js';
import { listMemberships } from './events-repository.js';
import { admitFeed } from './feed-ceilings.js';
import { assertMayListen } from './live-credential.js';
import type { DeliveredEvent } from './notification-event.js';

/** Log rows read per query while replaying. */
export const REPLAY_PAGE = 50;
/** Live events held for a consumer that is not taking them. */
export const MAX_PENDING = 100;

export interface FeedOptions {
  /** Replay every event after this position first; null starts from now. */
  since: number | null;
  /**
   * Called once when more than MAX_PENDING live events wait for the consumer, for a transport that
   * closes the socket then. Without it the feed forgets them and reads them from the log when the
   * consumer asks again: memory stays bounded and nothing is lost either way.
   */
  onOverflow?: () => void;
  /** The client's address, counted against SKEIN_WS_MAX_SOCKETS_PER_ADDRESS. */
  address: string;
}

export interface NotificationFeed extends AsyncIterable<DeliveredEvent> {
  readonly uid: string;
  /** The position when the feed started: the ready frame's cursor. */
  readonly startCursor: string;
  /** The next event in order; waits for one; null once closed. One reader at a time. */
  next(): Promise<DeliveredEvent | null>;
  /**
   * For a consumer that can take an event at once (a socket writes its frame): while the reader
   * waits in next() with nothing ahead, a live channel event is handed to `take` as soon as it is
   * judged, in the log's order, instead of through next(). `take` answers false when it cannot take
   * it now (the socket holds too much); next() then hands it out.
   */
  pushTo(take: (delivered: DeliveredEvent) => boolean): void;
  /**
   * Whether the feed follows this channel's events now: the user is a member, as of the events
   * passed on so far (false until the memberships are read). Live news asks it (live-router.ts).
   */
  follows(channelId: string): boolean;
  close(): void;
}

/**
 * Opens the caller's feed. Needs realtime.connect and messages.read; refused with 429 when the user already holds
 * SKEIN_WS_MAX_SOCKETS_PER_USER feeds (on all instances with Redis), or the address
 * SKEIN_WS_MAX_SOCKETS_PER_ADDRESS here (feed-ceilings.ts). A
 * `since` beyond the head counts as the head (the cursor came from elsewhere; honouring it would
 * hide the next events).
 */
export async function followNotifications(
  ctx: AppContext,
  caller: Caller,
  options: FeedOptions,
): Promise<NotificationFeed> {
  assertMayListen(caller);
  const release = await admitFeed(ctx, caller.uid, options.address);
  ctx.metrics.openFeeds.inc();
  judgeChannelEventsAhead(ctx);
  const feed = new LogFeed(ctx, caller.uid, options.onOverflow, () => {
    ctx.metrics.openFeeds.dec();
    release();
  });
  try {
    await feed.start(options.since);
    return feed;
  } catch (error) {
    feed.close();
    throw error;
  }
}

/** A live event taken out of the queue: being judged with its channel's other feeds, or judged. */
interface Held {
  /** Already through the ChangeFilter. */
  event: LoggedEvent;
  judging: boolean;
  /** What the shared judgement gave; undefined: the reader judges it on its own. */
  judged: SharedJudgement;
}

class LogFeed implements NotificationFeed, EventListener {
  startCursor = '';
  /** Everything up to here has been handed out or passed over. */
  private position = 0;
  /** Replay from the log up to here before taking live events. */
  private replayUpto = 0;
  /** Read from the log, in order, not handed out yet. */
  private fetched: LoggedEvent[] = [];
  /** Passed by the router, in order, not handed out yet. */
  private live: LoggedEvent[] = [];
  /** The next event to hand out when set: every other one comes after it. */
  private held: Held | null = null;
  /** The channels followed; null until the memberships are read (the feed hears all channels). */
  private channels: Set<string> | null = null;
  private closed = false;
  /** Set while the reader waits in next() for something to hand out. */
  private wake: (() => void) | null = null;
  private take: ((delivered: DeliveredEvent) => boolean) | null = null;
  private readonly changes = new ChangeFilter();

  constructor(
    private readonly ctx: AppContext,
    readonly uid: string,
    private readonly onOverflow: (() => void) | undefined,
    private readonly onClose: () => void,
  ) {}

  async start(since: number | null): Promise<void> {
    const router = this.ctx.events.router;
    const head = await router.register(this);
    if (this.closed) {
      router.unregister(this, []);
      return;
    }
    this.startCursor = encodeCursor(head);
    this.position = since === null ? head : Math.min(since, head);
    this.replayUpto = head;
    const memberships = await listMemberships(this.ctx.db, this.uid);
    if (this.closed) return;
    // Membership changes heard while reading apply on top, in order (a join read twice is harmless).
    const channels = new Set(memberships);
    this.live = this.live.filter((event) => {
      if (event.membership) {
        if (event.membership.joined) channels.add(event.membership.channel_id);
        else channels.delete(event.membership.channel_id);
        return true;
      }
      return event.channel_id === null || channels.has(event.channel_id);
    });
    this.channels = channels;
    router.followChannels(this, channels);
  }

  pushTo(take: (delivered: DeliveredEvent) => boolean): void {
    this.take = take;
  }

  follows(channelId: string): boolean {
    return !this.closed && (this.channels?.has(channelId) ?? false);
  }

  hear(event: LoggedEvent): void {
    if (this.closed) return;
    if (event.membership && this.channels) {
      const { channel_id, joined } = event.membership;
      if (joined) {
        this.channels.add(channel_id);
        this.ctx.events.router.follow(this, channel_id);
      } else {
        this.channels.delete(channel_id);
        this.ctx.events.router.unfollow(this, channel_id);
      }
    }
    if (this.holdLive(event)) return;
    if (this.live.length >= MAX_PENDING) {
      this.onOverflow?.();
      // Everything passed on is in the log: forgetting it costs a read, not an event.
      this.live = [];
      this.replayUpto = Math.max(this.replayUpto, event.seq);
    } else {
      this.live.push(event);
    }
    this.rouse();
  }

  /**
   * A channel event heard while the reader waits with nothing ahead of it is judged with the
   * channel's other feeds (judgeTogether) and, once judged, handed to `take` directly (settle).
   * False: it goes through the queue.
   */
  private holdLive(event: LoggedEvent): boolean {
    const idle =
      this.wake !== null &&
      this.held === null &&
      this.channels !== null &&
      this.fetched.length === 0 &&
      this.live.length === 0 &&
      this.position >= this.replayUpto;
    if (!idle || event.type === 'membership' || event.channel_id === null || event.seq <= this.position)
      return false;
    const part = this.changes.unseenPart(event);
    if (part === null) {
      this.position = event.seq;
      return true;
    }
    const held: Held = { event: part, judging: true, judged: undefined };
    this.held = held;
    // Narrowed for this feed (a message it was handed through another channel): judged on its own.
    if (part !== event || !judgeTogether(this.ctx, part, this.uid, (judged) => this.settle(held, judged))) {
      held.judging = false;
      this.rouse();
    }
    return true;
  }

  /** The shared judgement of the held event: handed to `take` when the reader still waits. */
  private settle(held: Held, judged: SharedJudgement): void {
    if (this.closed || this.held !== held) return;
    held.judging = false;
    held.judged = judged;
    if (judged === null) {
      this.held = null;
      this.position = held.event.seq;
    } else if (judged !== undefined && this.wake !== null && this.take) {
      const delivered = asDelivered(held.event, judged);
      if (this.take(delivered)) {
        this.held = null;
        this.position = held.event.seq;
        this.counted(delivered);
      }
    }
    if (this.held !== null || this.live.length > 0) this.rouse();
  }

  async next(): Promise<DeliveredEvent | null> {
    for (;;) {
      if (this.closed) return null;
      const held = await this.nextHeld();
      if (held === null) continue;
      this.position = held.event.seq;
      const judged =
        held.judged !== undefined ? held.judged : await buildClientEvent(this.ctx, this.uid, held.event);
      if (this.closed) return null;
      if (judged) return this.counted(asDelivered(held.event, judged));
    }
  }

  private counted(delivered: DeliveredEvent): DeliveredEvent {
    this.ctx.metrics.eventsDelivered.inc({ transport: 'socket' });
    this.ctx.metrics.deliveryLag.observe(
      { transport: 'socket' },
      (Date.now() - Date.parse(delivered.created_at)) / 1000,
    );
    return delivered;
  }

  /**
   * The next event after the position, through the ChangeFilter, from the held one, the replay or
   * live; null to re-check (woken, closed, or passed over).
   */
  private async nextHeld(): Promise<Held | null> {
    const held = this.held;
    if (held !== null) {
      if (held.judging) return this.parked();
      this.held = null;
      return held;
    }
    const logged = await this.nextLogged();
    if (logged === null) return null;
    const event = this.changes.unseenPart(logged);
    if (event === null) {
      this.position = logged.seq;
      return null;
    }
    return { event, judging: false, judged: undefined };
  }

  /** The next event after the position from the replay or live; null to re-check. */
  private async nextLogged(): Promise<LoggedEvent | null> {
    const fetched = this.fetched.shift();
    if (fetched) return fetched.seq > this.position ? fetched : null;
    if (this.position < this.replayUpto) {
      const page = await listEventsForUser(
        this.ctx.db,
        this.uid,
        this.position,
        this.replayUpto,
        REPLAY_PAGE,
      );
      if (page.length === 0) this.position = this.replayUpto;
      this.fetched = page;
      return null;
    }
    const live = this.live.shift();
    if (live) {
      if (live.seq <= this.position || live.type === 'membership') {
        if (live.seq > this.position) this.position = live.seq;
        return null;
      }
      return live;
    }
    return this.parked();
  }

  /** Waits until something is heard, settled or closed. */
  private async parked(): Promise<null> {
    await new Promise<void>((resolve) => (this.wake = resolve));
    return null;
  }

  private rouse(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ctx.events.router.unregister(this, this.channels ?? []);
    this.onClose();
    this.live = [];
    this.fetched = [];
    this.held = null;
    this.rouse();
  }

  [Symbol.asyncIterator](): AsyncIterator<DeliveredEvent> {
    return {
      next: async () => {
        const value = await this.next();
        return value === null ? { done: true, value: undefined } : { done: false, value };
      },
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
