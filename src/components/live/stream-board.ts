// One per instance: knows the open streams (their audience, from the open's news or, at start, the
// store) and hands their frames to this instance's live readers. Each reader is followed per stream
// by the last seq it was sent: a chunk it already has is dropped, a chunk after a gap waits while
// the gap is read from the store, and a reader that joins mid-stream first gets `stream.opened`
// with the text so far (a snapshot), then only what comes after it: no gap, no repeat.
// The reaper of every instance ends streams past their idle deadline (the writer vanished, or
// did not finish within STOP_GRACE_MS of a stop); the store's compare-and-set makes one of them win.
import type { Logger } from '../../platform/logger.js';
import type { Audience, LiveUser } from './live-frames.js';
import type { LiveReader, LiveRouter } from './live-router.js';
import {
  openedFrame,
  showsStopper,
  type StreamAppendedFrame,
  type StreamEndedFrame,
} from './stream-frames.js';
import type { ChunkNews, StreamEnd, StreamInfo, StreamStore } from './stream-store.js';

export type StreamNews =
  | ChunkNews
  | { k: 'stream_opened'; info: StreamInfo }
  | { k: 'stream_stop'; stream_id: string; by: LiveUser; at: string }
  | { k: 'stream_ended'; stream_id: string; ended: StreamEnd; message_id: string | null; seq: number };

const REAP_EVERY_MS = 2_000;

/** What one reader has of one stream: the last seq sent, or null while a snapshot or gap is read. */
interface Following {
  seq: number | null;
  held: ChunkNews[];
}

export class StreamBoard {
  private readonly streams = new Map<string, StreamInfo>();
  private readonly following = new WeakMap<LiveReader, Map<string, Following>>();
  private readonly reaping: NodeJS.Timeout;

  constructor(
    private readonly router: LiveRouter,
    private readonly store: StreamStore,
    private readonly publish: (news: StreamNews) => Promise<void>,
    private readonly log: Logger,
    /** The most text bytes one frame carries (half of SKEIN_EVENT_MAX_BYTES); a snapshot or gap past it is read apart. */
    private readonly maxTextBytes: number,
  ) {
    this.reaping = setInterval(() => void this.reap(), REAP_EVERY_MS);
    this.reaping.unref();
  }

  /** Learns the streams open at start (opened on another instance before this one listened). */
  async load(): Promise<void> {
    for (const { stream_id } of await this.store.listOpen()) {
      const snapshot = await this.store.snapshot(stream_id);
      if (snapshot && !this.streams.has(stream_id)) this.streams.set(stream_id, snapshot.info);
    }
  }

  /** The streams open now (as this instance has heard). */
  open(): StreamInfo[] {
    return [...this.streams.values()];
  }

  hear(news: StreamNews): void {
    switch (news.k) {
      case 'stream_opened': {
        const { info } = news;
        this.streams.set(info.stream_id, info);
        this.router.handEach(audienceOf(info), (reader) => {
          this.followed(reader).set(info.stream_id, { seq: 0, held: [] });
          return openedFrame(info, reader, 0, '', null);
        });
        return;
      }
      case 'chunk': {
        const info = this.streams.get(news.stream_id);
        if (info) this.router.handEach(audienceOf(info), (reader) => this.chunkFor(reader, news));
        return;
      }
      case 'stream_stop': {
        const info = this.streams.get(news.stream_id);
        if (!info) return;
        // The writer too: it must stop writing.
        const audience = { ...audienceOf(info), except_uid: '' };
        this.router.handEach(audience, (reader) => ({
          type: 'stream.stop_requested',
          stream_id: news.stream_id,
          by: showsStopper(info, news.by, reader.uid) ? news.by : null,
          at: news.at,
        }));
        return;
      }
      case 'stream_ended': {
        const info = this.streams.get(news.stream_id);
        if (!info) return;
        const frame: StreamEndedFrame = {
          type: 'stream.ended',
          stream_id: news.stream_id,
          ended: news.ended,
          message_id: news.message_id,
          seq: news.seq,
        };
        this.router.handEach(audienceOf(info), (reader) => {
          this.followed(reader).delete(news.stream_id);
          return frame;
        });
        this.router.inOrder(() => this.streams.delete(news.stream_id));
        return;
      }
    }
  }

  /** A reader that has just joined: a snapshot of each open stream it may read, then what follows. */
  join(reader: LiveReader): void {
    for (const info of this.streams.values()) {
      const audience = audienceOf(info);
      if (!audience.uids.includes(reader.uid) && !audience.channel_ids.some((id) => reader.follows(id)))
        continue;
      if (reader.uid === info.writer.uid) continue;
      this.startFromSnapshot(reader, info, { seq: null, held: [] });
    }
  }

  /**
   * Follows a stream for a reader from its snapshot: `stream.opened` with the text so far, then the
   * chunks after it (those heard meanwhile are held in `following`).
   */
  private startFromSnapshot(reader: LiveReader, info: StreamInfo, following: Following): void {
    this.followed(reader).set(info.stream_id, following);
    void this.store.snapshot(info.stream_id).then(
      (snapshot) =>
        this.router.inOrder(() => {
          if (!snapshot || snapshot.status.state === 'ended') {
            this.followed(reader).delete(info.stream_id);
            return;
          }
          reader.send(
            openedFrame(
              info,
              reader,
              snapshot.status.seq,
              snapshot.text,
              snapshot.status.stop,
              this.maxTextBytes,
            ),
          );
          this.caughtUp(reader, following, snapshot.status.seq);
        }),
      (error: unknown) =>
        this.log.warn({ err: error, stream_id: info.stream_id }, 'Reading a stream snapshot failed'),
    );
  }

  stop(): void {
    clearInterval(this.reaping);
  }

  private followed(reader: LiveReader): Map<string, Following> {
    let map = this.following.get(reader);
    if (!map) {
      map = new Map();
      this.following.set(reader, map);
    }
    return map;
  }

  private chunkFor(reader: LiveReader, news: ChunkNews): StreamAppendedFrame | null {
    const following = this.followed(reader).get(news.stream_id);
    if (!following) {
      // In the audience now but not when the stream opened (a member who joined its channel since):
      // it starts from the snapshot, as a reader who connects mid-stream does.
      const info = this.streams.get(news.stream_id);
      if (info && reader.uid !== info.writer.uid)
        this.startFromSnapshot(reader, info, { seq: null, held: [news] });
      return null;
    }
    if (following.seq === null) {
      following.held.push(news);
      return null;
    }
    if (news.seq <= following.seq) return null;
    if (news.after === following.seq) {
      following.seq = news.seq;
      return appended(news.stream_id, news.after, news.seq, news.text);
    }
    // A gap (news lost on the way): read it, then go on with what was held meanwhile.
    const from = following.seq;
    following.seq = null;
    following.held.push(news);
    void this.store.textAfter(news.stream_id, from).then(
      (missing) =>
        this.router.inOrder(() => {
          if (missing && missing.seq > from) {
            const info = this.streams.get(news.stream_id);
            // A gap too large for one frame: the stream's state again, its text to be read apart.
            if (info && Buffer.byteLength(JSON.stringify(missing.text)) > this.maxTextBytes)
              reader.send(openedFrame(info, reader, missing.seq, missing.text, null, this.maxTextBytes));
            else reader.send(appended(news.stream_id, from, missing.seq, missing.text));
          }
          this.caughtUp(reader, following, Math.max(from, missing?.seq ?? from));
        }),
      (error: unknown) =>
        this.log.warn({ err: error, stream_id: news.stream_id }, 'Filling a stream gap failed'),
    );
    return null;
  }

  /** The reader has everything up to `seq`: sends what was held after it, in order. */
  private caughtUp(reader: LiveReader, following: Following, seq: number): void {
    following.seq = seq;
    const held = following.held.sort((a, b) => a.seq - b.seq);
    following.held = [];
    for (const news of held) {
      const frame = this.chunkFor(reader, news);
      if (frame) reader.send(frame);
    }
  }

  /** Ends the streams past their deadline, leaving no message (decision 031: the writer is gone). */
  private async reap(): Promise<void> {
    try {
      const now = Date.now();
      for (const { stream_id, deadline } of await this.store.listOpen()) {
        if (deadline > now) continue;
        const status = await this.store.transition(
          stream_id,
          ['open', 'stopping'],
          'ended',
          { ended: 'abandoned' },
          now,
        );
        if (status)
          await this.publish({
            k: 'stream_ended',
            stream_id,
            ended: 'abandoned',
            message_id: null,
            seq: status.seq,
          });
      }
    } catch (error) {
      this.log.warn({ err: error }, 'Reaping idle streams failed');
    }
  }
}

/** Who reads a stream: the finished message's viewers but its writer. */
export function audienceOf(info: StreamInfo): Audience {
  return { uids: info.uids, channel_ids: info.channel_ids, except_uid: info.writer.uid };
}

function appended(streamId: string, after: number, seq: number, text: string): StreamAppendedFrame {
  return { type: 'stream.appended', stream_id: streamId, after, seq, text };
}
