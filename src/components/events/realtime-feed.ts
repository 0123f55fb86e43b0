// The one "replay, then live, without gaps" for both socket transports (/v1/ws/v1 and the GraphQL
// subscription). A feed hands out one user's notifications strictly in seq order, each once.
//
// Why it cannot simply forward the bus: a notification is published after its transaction commits,
// so two commits for the same user can reach the bus in the opposite order, a Redis outage can drop
// some, and a replay from the outbox overlaps whatever arrives live meanwhile. The outbox numbers
// each user's notifications 1, 2, 3, … without gaps, in commit order; so the feed keeps a cursor
// (the last seq handed out), takes a live notification only when it is cursor + 1, drops anything
// at or below the cursor, and reads the outbox whenever it sees a gap or was asked to replay. It
// subscribes before reading the latest seq, so nothing committed after that read can be missed.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { StoredNotification } from './notification-event.js';
import { latestSeq, listNotificationsSince } from './outbox-repository.js';

/** Outbox rows read per query while catching up. */
export const REPLAY_PAGE = 50;
/** Live notifications held for a consumer that is not taking them. */
export const MAX_PENDING = 100;

export interface FeedOptions {
  /** Replay every notification with seq > since first; null starts from now. */
  since: number | null;
  /**
   * Called once when more than MAX_PENDING live notifications wait for the consumer, for a transport
   * that closes the socket then. Without it the feed forgets them and reads them from the outbox
   * when the consumer asks again: memory stays bounded and nothing is lost either way.
   */
  onOverflow?: () => void;
}

export interface NotificationFeed extends AsyncIterable<StoredNotification> {
  readonly uid: string;
  /** The user's latest seq when the feed started: the ready frame's seq. */
  readonly startSeq: number;
  /** The next notification in seq order; waits for one; null once closed. One reader at a time. */
  next(): Promise<StoredNotification | null>;
  close(): void;
}

/**
 * Opens the caller's feed. Needs realtime.connect. A `since` beyond the latest seq is taken as the
 * latest (the client's number came from elsewhere; it would otherwise hide the next notifications).
 */
export async function followNotifications(
  ctx: AppContext,
  caller: Caller,
  options: FeedOptions,
): Promise<NotificationFeed> {
  assertScope(caller, 'realtime.connect');
  const feed = new OutboxFeed(ctx, caller.uid, options.onOverflow);
  try {
    const latest = await latestSeq(ctx.db, caller.uid);
    feed.start(latest, options.since === null ? latest : Math.min(options.since, latest));
    return feed;
  } catch (error) {
    feed.close();
    throw error;
  }
}

class OutboxFeed implements NotificationFeed {
  startSeq = 0;
  /** Last seq handed out; -1 until start(), so that everything heard before then is kept. */
  private cursor = -1;
  /** Read from the outbox, in order, not handed out yet. */
  private fetched: StoredNotification[] = [];
  /** Heard on the bus, not handed out yet (any order). */
  private pending: StoredNotification[] = [];
  /** The outbox may hold notifications after the cursor that `pending` does not. */
  private behind = false;
  private closed = false;
  private wake: (() => void) | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ctx: AppContext,
    readonly uid: string,
    private readonly onOverflow: (() => void) | undefined,
  ) {
    this.unsubscribe = ctx.events.subscribe(uid, (notification) => this.hear(notification));
  }

  start(latest: number, cursor: number): void {
    this.startSeq = latest;
    this.cursor = cursor;
    this.behind = cursor < latest;
    this.pending = this.pending.filter((n) => n.seq > cursor);
  }

  private hear(notification: StoredNotification): void {
    if (this.closed || notification.seq <= this.cursor) return;
    if (this.pending.length >= MAX_PENDING) {
      this.onOverflow?.();
      // Everything heard is in the outbox too: forgetting it costs a read, not a notification.
      this.pending = [];
      this.behind = true;
    } else {
      this.pending.push(notification);
    }
    this.wake?.();
  }

  async next(): Promise<StoredNotification | null> {
    for (;;) {
      if (this.closed) return null;
      const fetched = this.fetched.shift();
      if (fetched) {
        if (fetched.seq <= this.cursor) continue;
        return this.handOut(fetched);
      }
      this.pending = this.pending.filter((n) => n.seq > this.cursor);
      const following = this.pending.findIndex((n) => n.seq === this.cursor + 1);
      if (following >= 0) return this.handOut(this.pending.splice(following, 1)[0]!);
      if (this.behind || this.pending.length > 0) {
        await this.catchUp();
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  /** Reads the next page after the cursor; called on a replay, an overflow or a gap in the live order. */
  private async catchUp(): Promise<void> {
    const page = await listNotificationsSince(this.ctx.db, this.uid, this.cursor, REPLAY_PAGE);
    if (this.closed) return;
    this.behind = page.length === REPLAY_PAGE;
    this.fetched = page.filter((n) => n.seq > this.cursor);
    if (this.fetched.length === 0 && this.pending.length > 0) {
      // The outbox has nothing after the cursor, yet later numbers were heard: a hole the outbox
      // cannot fill (numbers are gapless, so this means a record went missing). Waiting for it
      // would stall the feed forever; go on with the lowest number heard.
      this.pending.sort((a, b) => a.seq - b.seq);
      this.ctx.log.warn(
        { uid: this.uid, after: this.cursor, next: this.pending[0]!.seq },
        'notification seq gap',
      );
      this.fetched = [this.pending.shift()!];
    }
  }

  private handOut(notification: StoredNotification): StoredNotification {
    this.cursor = notification.seq;
    return notification;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.pending = [];
    this.fetched = [];
    this.wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<StoredNotification> {
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
