// Waits for a bot's reply to one posted turn, driven by events only: a listener on this instance's
// event router hears the caller's `sent` events (rounds from any instance, through the bus), and a
// reader on the live router hears the bot's streamed reply as it is written (decision 031). Nothing
// polls. Both are registered before the turn is posted, so no reply can slip past; what arrives
// before the turn's id is known is held and judged once it is.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import type { EventListener } from '../event-log/event-router.js';
import type { LoggedEvent } from '../event-log/event-log.js';
import type { LiveReader } from '../live/live-router.js';
import type { StreamAppendedFrame, StreamEndedFrame, StreamOpenedFrame } from '../live/stream-frames.js';
import type { MessageOutput } from '../messages/messages.schemas.js';
import { readMessage } from '../messages/read-message.js';

export type ReplyNews =
  /** The bot opened a streamed reply to the turn. */
  | { kind: 'opened'; stream_id: string }
  /** More of the streamed reply's text. */
  | { kind: 'text'; text: string }
  /** The streamed reply ended without a message (its writer vanished). */
  | { kind: 'abandoned' }
  /** The bot's reply, posted (at once, or as its stream's finish). */
  | { kind: 'message'; message: MessageOutput };

type Frame = StreamOpenedFrame | StreamAppendedFrame | StreamEndedFrame | { type: string };

export class ReplyWaiter {
  private turnId: string | null = null;
  private streamId: string | null = null;
  private streamSeq = 0;
  private readonly heldFrames: Frame[] = [];
  private readonly heldMessageIds: string[] = [];
  private readonly news: ReplyNews[] = [];
  private wake: (() => void) | null = null;
  private closed = false;
  private readonly listener: EventListener;
  private readonly reader: LiveReader;

  private constructor(
    private readonly ctx: AppContext,
    private readonly caller: Caller,
    private readonly botUid: string,
  ) {
    this.listener = { uid: caller.uid, hear: (event) => this.hear(event) };
    this.reader = { uid: caller.uid, follows: () => false, send: (frame) => this.frame(frame as Frame) };
  }

  /** Starts listening for the caller (before its turn is posted). */
  static async open(ctx: AppContext, caller: Caller, botUid: string): Promise<ReplyWaiter> {
    const waiter = new ReplyWaiter(ctx, caller, botUid);
    ctx.live.router.add(waiter.reader);
    await ctx.events.router.register(waiter.listener);
    // Only the caller's own stream: a reply to the turn always reaches the turn's author directly.
    ctx.events.router.followChannels(waiter.listener, []);
    return waiter;
  }

  /** The turn the reply answers; what was held meanwhile is judged now. */
  expect(turnId: string): void {
    this.turnId = turnId;
    for (const frame of this.heldFrames.splice(0)) this.frame(frame);
    for (const id of this.heldMessageIds.splice(0)) void this.judge(id);
  }

  /** The open stream of the reply, if any (a client that leaves stops it). */
  get stream(): string | null {
    return this.streamId;
  }

  /** The next piece of news, or null when `deadline` (epoch ms; null: none) passes first or it is closed. */
  async next(deadline: number | null): Promise<ReplyNews | null> {
    while (this.news.length === 0) {
      const left = deadline === null ? null : deadline - Date.now();
      if ((left !== null && left <= 0) || this.closed) return null;
      await new Promise<void>((resolve) => {
        const timer = left === null ? undefined : setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return this.news.shift()!;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ctx.live.router.remove(this.reader);
    this.ctx.events.router.unregister(this.listener, []);
    this.wake?.();
  }

  private push(news: ReplyNews): void {
    this.news.push(news);
    this.wake?.();
  }

  private hear(event: LoggedEvent): void {
    if (this.closed || event.type !== 'sent' || event.actor_uid !== this.botUid) return;
    for (const id of event.message_ids) {
      if (this.turnId === null) this.heldMessageIds.push(id);
      else void this.judge(id);
    }
  }

  /** One read per message the bot sent the caller while waiting: is it the reply to the turn? */
  private async judge(messageId: string): Promise<void> {
    try {
      const message = await readMessage(this.ctx, this.caller, messageId);
      if (message.parent_id === this.turnId && message.author.uid === this.botUid && !this.closed)
        this.push({ kind: 'message', message });
    } catch {
      // Deleted or hidden since it was sent: not an answer the caller may be shown.
    }
  }

  private frame(frame: Frame): void {
    if (this.closed) return;
    if (this.turnId === null) {
      this.heldFrames.push(frame);
      return;
    }
    if (frame.type === 'stream.opened') {
      const opened = frame as StreamOpenedFrame;
      if (opened.parent_id !== this.turnId || opened.author.uid !== this.botUid) return;
      this.streamId = opened.stream_id;
      this.streamSeq = opened.seq;
      this.push({ kind: 'opened', stream_id: opened.stream_id });
      if (opened.text !== '') this.push({ kind: 'text', text: opened.text });
    } else if (frame.type === 'stream.appended') {
      const appended = frame as StreamAppendedFrame;
      if (appended.stream_id !== this.streamId || appended.seq <= this.streamSeq) return;
      this.streamSeq = appended.seq;
      this.push({ kind: 'text', text: appended.text });
    } else if (frame.type === 'stream.ended') {
      const ended = frame as StreamEndedFrame;
      if (ended.stream_id !== this.streamId) return;
      this.streamId = null;
      // A finished stream's message comes as a `sent` event; one that left none is news here.
      if (ended.message_id === null) this.push({ kind: 'abandoned' });
    }
  }
}
