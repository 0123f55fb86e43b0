// One per instance: hands live news (typing, streamed chunks) to this instance's connections that
// asked for it and are in its audience. News waits its turn behind the event router's chain, so it
// goes out after every event heard before it: once a channel member's removal has been passed on,
// the member's feed no longer follows the channel and hears nothing more from it.
import type { EventRouter } from '../event-log/event-router.js';
import { reaches, type Audience } from './live-frames.js';

/** A connection that asked for live frames. */
export interface LiveReader {
  readonly uid: string;
  /** Whether its feed follows this channel now (false until the feed knows its memberships). */
  follows(channelId: string): boolean;
  /** Sends a frame; the reader judges its credential first (websocket-notifications.ts). */
  send(frame: object): void;
}

export class LiveRouter {
  private readonly readers = new Set<LiveReader>();

  constructor(private readonly router: EventRouter) {}

  add(reader: LiveReader): void {
    this.readers.add(reader);
  }

  remove(reader: LiveReader): void {
    this.readers.delete(reader);
  }

  /** How many connections here asked for live frames. */
  get size(): number {
    return this.readers.size;
  }

  /** Sends `frame` to the readers here in the audience, in order with the events heard before it. */
  hand(audience: Audience, frame: object): void {
    this.handEach(audience, () => frame);
  }

  /** The same with a frame built for each reader (null: none for it). */
  handEach(audience: Audience, build: (reader: LiveReader) => object | null): void {
    if (this.readers.size === 0) return;
    this.router.inOrder(() => {
      for (const reader of this.readers) {
        if (!reaches(audience, reader.uid, (channelId) => reader.follows(channelId))) continue;
        const frame = build(reader);
        if (frame !== null) reader.send(frame);
      }
    });
  }

  /** Runs `step` in order with the news (a new reader's snapshot after what came before it). */
  inOrder(step: () => void): void {
    this.router.inOrder(step);
  }
}
