// The stream store of a lone instance (no REDIS_URL): the same rules as the Redis store, in memory.
import {
  STOP_GRACE_MS,
  type AppendAnswer,
  type OpenAnswer,
  type ChunkNews,
  type StreamInfo,
  type StreamLimits,
  type StreamSnapshot,
  type StreamState,
  type StreamStatus,
  type StreamStore,
} from './stream-store.js';

/** An ended stream is still answered (GET, a repeated finish) this long. */
export const ENDED_KEPT_MS = 10 * 60_000;

interface Held {
  info: StreamInfo;
  status: StreamStatus;
  chunks: string[];
  deadline: number;
  /** The Idempotency-Key it was opened with: forgotten with the stream. */
  key: string | null;
}

export class LocalStreamStore implements StreamStore {
  private readonly streams = new Map<string, Held>();
  private readonly keys = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly publish: (news: ChunkNews) => void) {}

  open(
    info: StreamInfo,
    maxOpen: number,
    now: number,
    idleMs: number,
    key: string | null,
  ): Promise<OpenAnswer> {
    // Keys are the writer's own: another writer's same key is another request.
    const writerKey = key === null ? null : `${info.writer.uid}:${key}`;
    const earlier = writerKey === null ? undefined : this.keys.get(writerKey);
    if (earlier && this.streams.has(earlier)) return Promise.resolve({ opened: false, existing: earlier });
    const open = [...this.streams.values()].filter(
      (held) => held.info.writer.uid === info.writer.uid && held.status.state !== 'ended',
    ).length;
    if (open >= maxOpen) return Promise.resolve({ opened: false, full: true });
    if (writerKey !== null) this.keys.set(writerKey, info.stream_id);
    this.streams.set(info.stream_id, {
      info,
      status: {
        state: 'open',
        seq: 0,
        length: 0,
        updated_at: new Date(now).toISOString(),
        stop: null,
        ended: null,
        message_id: null,
      },
      chunks: [],
      deadline: now + idleMs,
      key: writerKey,
    });
    return Promise.resolve({ opened: true });
  }

  append(
    streamId: string,
    uid: string,
    seq: number,
    text: string,
    now: number,
    limits: StreamLimits,
  ): Promise<AppendAnswer> {
    const held = this.streams.get(streamId);
    if (!held) return Promise.resolve({ ok: false, reason: 'not_found', seq: 0 });
    const { status } = held;
    const refuse = (reason: Exclude<AppendAnswer, { ok: true }>['reason']) =>
      Promise.resolve<AppendAnswer>({ ok: false, reason, seq: status.seq });
    if (held.info.writer.uid !== uid) return refuse('not_writer');
    if (seq === status.seq && seq > 0 && held.chunks[seq - 1] === text)
      return Promise.resolve({ ok: true, seq, length: status.length });
    if (status.state === 'stopping') return refuse('stopped');
    if (status.state !== 'open') return refuse('ended');
    if (seq !== status.seq + 1) return refuse('seq_conflict');
    if (status.length + text.length > limits.maxChars) return refuse('too_long');
    held.chunks.push(text);
    const after = status.seq;
    status.seq = seq;
    status.length += text.length;
    status.updated_at = new Date(now).toISOString();
    held.deadline = now + limits.idleMs;
    this.publish({ k: 'chunk', stream_id: streamId, after, seq, text });
    return Promise.resolve({ ok: true, seq, length: status.length });
  }

  snapshot(streamId: string): Promise<StreamSnapshot | null> {
    const held = this.streams.get(streamId);
    return Promise.resolve(
      held ? { info: held.info, status: { ...held.status }, text: held.chunks.join('') } : null,
    );
  }

  textAfter(streamId: string, seq: number): Promise<{ text: string; seq: number } | null> {
    const held = this.streams.get(streamId);
    return Promise.resolve(held ? { text: held.chunks.slice(seq).join(''), seq: held.status.seq } : null);
  }

  transition(
    streamId: string,
    from: StreamState[],
    to: StreamState,
    patch: Partial<Pick<StreamStatus, 'stop' | 'ended' | 'message_id'>>,
    now: number,
  ): Promise<StreamStatus | null> {
    const held = this.streams.get(streamId);
    if (!held || !from.includes(held.status.state)) return Promise.resolve(null);
    Object.assign(held.status, patch, { state: to, updated_at: new Date(now).toISOString() });
    if (to === 'stopping') held.deadline = Math.min(held.deadline, now + STOP_GRACE_MS);
    if (to === 'ended') {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.streams.delete(streamId);
        if (held.key !== null) this.keys.delete(held.key);
      }, ENDED_KEPT_MS);
      timer.unref();
      this.timers.add(timer);
    }
    return Promise.resolve({ ...held.status });
  }

  listOpen(): Promise<{ stream_id: string; deadline: number }[]> {
    return Promise.resolve(
      [...this.streams.values()]
        .filter((held) => held.status.state !== 'ended')
        .map((held) => ({ stream_id: held.info.stream_id, deadline: held.deadline })),
    );
  }

  close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.streams.clear();
    return Promise.resolve();
  }
}
