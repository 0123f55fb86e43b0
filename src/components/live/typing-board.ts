// Every instance holds every active typing signal (about 300 bytes each) and tells its own readers
// when one starts, changes its status or ends. Expiry is the server's: a signal ends
// TYPING_EXPIRES_MS after the last renewal heard, so clients keep no timers and a typist that
// vanishes stops showing within that bound. Renewals are published at most every
// TYPING_RENEW_PUBLISH_MS (set-typing.ts) and send no frame.
import {
  reaches,
  targetKey,
  type Audience,
  type LiveUser,
  type TypingFrame,
  type TypingTarget,
} from './live-frames.js';
import type { LiveReader, LiveRouter } from './live-router.js';

/** A signal as published on the live bus. */
export interface TypingNews {
  k: 'typing';
  op: 'start' | 'stop';
  user: LiveUser;
  target: TypingTarget;
  audience: Audience;
  status: string | null;
}

/** A signal ends this long after the last renewal any instance heard. */
export const TYPING_EXPIRES_MS = 8_000;
/** A renewal is published when the last one heard is at least this old (set-typing.ts). */
export const TYPING_RENEW_PUBLISH_MS = 2_000;
/** How often clients should renew (the answer's renew_in_ms; the SDKs use it). */
export const TYPING_RENEW_MS = 4_000;

interface Active {
  news: TypingNews;
  heardAt: number;
  timer: NodeJS.Timeout;
}

export class TypingBoard {
  private readonly active = new Map<string, Active>();

  constructor(
    private readonly readers: LiveRouter,
    private readonly expiresMs = TYPING_EXPIRES_MS,
  ) {}

  /** A signal's id: one per typist and target. */
  static idOf(uid: string, target: TypingTarget): string {
    return `${uid}|${targetKey(target)}`;
  }

  hear(news: TypingNews): void {
    const id = TypingBoard.idOf(news.user.uid, news.target);
    const current = this.active.get(id);
    if (current) clearTimeout(current.timer);
    if (news.op === 'stop') {
      if (!current) return;
      this.active.delete(id);
      this.tell(current.news, stopped(current.news));
      return;
    }
    const timer = setTimeout(() => {
      if (this.active.get(id)?.timer !== timer) return;
      this.active.delete(id);
      this.tell(news, stopped(news));
    }, this.expiresMs);
    timer.unref();
    this.active.set(id, { news, heardAt: Date.now(), timer });
    if (!current || current.news.status !== news.status) this.tell(news, started(news));
  }

  /** The signal active for this id, and when it was last heard; undefined when none. */
  lookup(id: string): { news: TypingNews; heardAt: number } | undefined {
    const found = this.active.get(id);
    return found && { news: found.news, heardAt: found.heardAt };
  }

  /** The typing.started frames of the signals active for a reader that has just connected. */
  snapshotFor(reader: LiveReader): TypingFrame[] {
    return [...this.active.values()]
      .filter(({ news }) => reaches(news.audience, reader.uid, (channelId) => reader.follows(channelId)))
      .map(({ news }) => started(news));
  }

  clear(): void {
    for (const { timer } of this.active.values()) clearTimeout(timer);
    this.active.clear();
  }

  private tell(news: TypingNews, frame: TypingFrame): void {
    this.readers.hand(news.audience, frame);
  }
}

function started(news: TypingNews): TypingFrame {
  return { type: 'typing.started', target: news.target, user: news.user, status: news.status };
}

function stopped(news: TypingNews): TypingFrame {
  return { type: 'typing.stopped', target: news.target, user: news.user };
}
