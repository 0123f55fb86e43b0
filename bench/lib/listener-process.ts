// The fan-out's listening sockets, in a process of their own (started by lib/fan-out-listeners.ts,
// which it answers over the IPC channel). The bench process holds the seeded dataset in its heap
// (900 MB on the large profile), and reading 10,000 frames a round in that heap made V8 mark it
// again and again: 1.5 to 1.9 s of the bench process's CPU in rounds that took about a second, its
// main thread only 0.4 of it (2026-11-28), most of it outside the GC pauses that Node reports. In this small heap the frames
// cost what a client's frames cost. Arrival times are process.hrtime (CLOCK_MONOTONIC): the same
// clock in both processes. Sockets opened with ?live=true also record when each streamed chunk
// (stream.appended, decision 031) reached them, for the stream workload.
import type { WebSocket } from 'ws';
import { closeAll, monotonicMs, openMany, type FrameCounter, type StreamFrame } from './realtime.js';

export type ListenerRequest =
  | { id: number; op: 'open'; urls: string[]; waitForReadyFrame: boolean }
  | { id: number; op: 'arm' }
  | { id: number; op: 'last'; count: number; timeoutMs: number }
  | {
      id: number;
      op: 'chunks';
      /** Each stream with its last seq: answered once that seq reached `sockets` sockets (or at the time-out). */
      streams: { stream_id: string; seq: number }[];
      sockets: number;
      timeoutMs: number;
    }
  | {
      id: number;
      op: 'typing-start';
      /** Per socket (in the order opened) the typing frame it sends once a second; null: none. */
      frames: (Record<string, unknown> | null)[];
    }
  | { id: number; op: 'typing-stop'; stopFrames: boolean }
  | { id: number; op: 'close' };

export interface Arrivals {
  /** When the last frame of the round arrived (monotonicMs), or 0 when none did. */
  last: number;
  received: number;
  frameBytes: number;
  /** The event of the round's first notification frame (to check what the frames are). */
  firstEvent: unknown;
}

/**
 * One stream's chunks as the sockets got them, indexed by seq (index 0 unused): how many sockets got
 * chunk seq, and when the last of them did (monotonicMs); `frames`: its stream.appended frames in all.
 */
export interface ChunkArrivals {
  count: number[];
  last: number[];
  frames: number;
}

/** What a request gives back when it succeeds. */
export interface Answered {
  ok: true;
  /** open: the sockets open and ready. */
  opened?: number;
  /** last: the round's arrivals. */
  arrivals?: Arrivals;
  /** chunks: by stream id. */
  chunks?: Record<string, ChunkArrivals>;
  /** typing-stop: the signals sent over the sockets since typing-start and their answers. */
  typing?: TypingSent;
}

/** Typing signals sent as socket frames (decision 031), and how they were answered. */
export interface TypingSent {
  /** From the frame's send to its typing.ok (ms). */
  latencies: number[];
  errors: number;
  firstError?: string;
  /** Frames not sent because the socket's previous one was unanswered. */
  skipped: number;
  seconds: number;
}

export type ListenerAnswer = { id: number } & (Answered | { ok: false; error: string });

/** Arrivals of notification frames since the round was armed. */
class Round implements FrameCounter {
  private arrivals: number[] = [];
  private waiter: { count: number; resolve: () => void } | null = null;
  private frameBytes = 0;
  private firstEvent: unknown = undefined;

  arm(): void {
    this.arrivals = [];
    this.firstEvent = undefined;
  }

  onFrame(at: number, bytes: number, frame: { event?: unknown }): void {
    this.arrivals.push(at);
    this.frameBytes = bytes;
    if (this.arrivals.length === 1) this.firstEvent = frame.event;
    if (this.waiter && this.arrivals.length >= this.waiter.count) this.waiter.resolve();
  }

  /** Waits until `count` frames arrived (or `timeoutMs` passed). */
  async lastOf(count: number, timeoutMs: number): Promise<Arrivals> {
    if (this.arrivals.length < count) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
      this.waiter = null;
    }
    return {
      last: this.arrivals.length ? Math.max(...this.arrivals) : 0,
      received: this.arrivals.length,
      frameBytes: this.frameBytes,
      firstEvent: this.firstEvent,
    };
  }
}

/**
 * Arrivals of streamed chunks: a stream.appended frame carries the chunks after..seq joined (a
 * reader that fell behind gets several in one frame), so each of them counts as arrived with it.
 */
class Chunks {
  private readonly streams = new Map<string, ChunkArrivals>();
  private waiter: { done: () => boolean; resolve: () => void } | null = null;

  onStream(at: number, frame: StreamFrame): void {
    if (frame.type !== 'stream.appended' || frame.stream_id === undefined || frame.seq === undefined) return;
    let stream = this.streams.get(frame.stream_id);
    if (!stream) {
      stream = { count: [], last: [], frames: 0 };
      this.streams.set(frame.stream_id, stream);
    }
    stream.frames++;
    for (let seq = (frame.after ?? frame.seq - 1) + 1; seq <= frame.seq; seq++) {
      stream.count[seq] = (stream.count[seq] ?? 0) + 1;
      stream.last[seq] = Math.max(stream.last[seq] ?? 0, at);
    }
    if (this.waiter?.done()) this.waiter.resolve();
  }

  /** Waits until each stream's last seq reached `sockets` sockets (or `timeoutMs` passed), then forgets them. */
  async of(
    streams: { stream_id: string; seq: number }[],
    sockets: number,
    timeoutMs: number,
  ): Promise<Record<string, ChunkArrivals>> {
    const done = () =>
      streams.every(({ stream_id, seq }) => (this.streams.get(stream_id)?.count[seq] ?? 0) >= sockets);
    if (!done()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.waiter = {
          done,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
      this.waiter = null;
    }
    const answer: Record<string, ChunkArrivals> = {};
    for (const { stream_id } of streams) {
      answer[stream_id] = this.streams.get(stream_id) ?? { count: [], last: [], frames: 0 };
      this.streams.delete(stream_id);
    }
    return answer;
  }
}

/** Each socket sends its typing frame once a second, spread evenly, one unanswered frame at most. */
class Typists {
  private timer: NodeJS.Timeout | null = null;
  private readonly sentAt = new Map<string, number>();
  private sent: TypingSent = { latencies: [], errors: 0, skipped: 0, seconds: 0 };
  private startedAt = 0;
  private next = 0;

  start(frames: (Record<string, unknown> | null)[]): void {
    if (this.timer) clearInterval(this.timer);
    this.sent = { latencies: [], errors: 0, skipped: 0, seconds: 0 };
    this.sentAt.clear();
    this.startedAt = monotonicMs();
    const typists = frames.flatMap((frame, k) => (frame && sockets[k] ? [{ k, frame }] : []));
    if (typists.length === 0) return;
    this.timer = setInterval(() => {
      const { k, frame } = typists[this.next++ % typists.length]!;
      const id = String(k);
      if (this.sentAt.has(id)) {
        this.sent.skipped++;
        return;
      }
      this.sentAt.set(id, monotonicMs());
      sockets[k]!.send(JSON.stringify({ ...frame, type: 'typing', id }));
    }, 1000 / typists.length);
  }

  onReply(at: number, frame: { type: string; id?: string | null; code?: string; detail?: unknown }): void {
    const sentAt = frame.id == null ? undefined : this.sentAt.get(frame.id);
    if (sentAt === undefined) return;
    this.sentAt.delete(frame.id!);
    if (frame.type === 'typing.ok') this.sent.latencies.push(at - sentAt);
    else {
      this.sent.errors++;
      this.sent.firstError ??= `${frame.code}: ${JSON.stringify(frame.detail)}`;
    }
  }

  /** Stops sending; with `stopFrames`, each socket then says stop (answers awaited up to 10 s). */
  async stop(stopFrames = false, frames: (Record<string, unknown> | null)[] = []): Promise<TypingSent> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sent.seconds = (monotonicMs() - this.startedAt) / 1000;
    if (stopFrames) {
      frames.forEach((frame, k) => {
        if (!frame) return;
        sockets[k]?.send(JSON.stringify({ ...frame, type: 'typing', op: 'stop' }));
      });
    }
    const deadline = monotonicMs() + 10_000;
    while (this.sentAt.size > 0 && monotonicMs() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return this.sent;
  }
}

const round = new Round();
const typists = new Typists();
let typingFrames: (Record<string, unknown> | null)[] = [];
const chunks = new Chunks();
const counter: FrameCounter = {
  onFrame: (at, bytes, frame) => round.onFrame(at, bytes, frame),
  onStream: (at, frame) => chunks.onStream(at, frame),
  onReply: (at, frame) => typists.onReply(at, frame),
};
let sockets: WebSocket[] = [];

async function answer(request: ListenerRequest): Promise<Answered> {
  switch (request.op) {
    case 'open':
      sockets = sockets.concat(await openMany(request.urls, counter, request.waitForReadyFrame));
      return { ok: true, opened: sockets.length };
    case 'arm':
      round.arm();
      return { ok: true };
    case 'last':
      return { ok: true, arrivals: await round.lastOf(request.count, request.timeoutMs) };
    case 'chunks':
      return { ok: true, chunks: await chunks.of(request.streams, request.sockets, request.timeoutMs) };
    case 'typing-start':
      typingFrames = request.frames;
      typists.start(request.frames);
      return { ok: true };
    case 'typing-stop':
      return { ok: true, typing: await typists.stop(request.stopFrames, typingFrames) };
    case 'close':
      await closeAll(sockets);
      sockets = [];
      return { ok: true };
  }
}

process.on('message', (request: ListenerRequest) => {
  answer(request).then(
    (answered) => process.send!({ id: request.id, ...answered }),
    (error: unknown) =>
      process.send!({
        id: request.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      }),
  );
});
// The bench's end (or crash) closes the channel: nothing is left listening.
process.on('disconnect', () => process.exit(0));
