// Where a streamed reply's text lives while it is written (decision 031): in Redis with REDIS_URL,
// because behind a load balancer any instance may take an append; in this process's memory without
// it (a restart loses open streams: their writers then post what they have as a plain reply). Each
// append is checked and stored in one atomic step that also publishes the chunk on the live bus, so
// every instance hears chunks in store order.
import type { LiveUser } from './live-frames.js';
import type { MessageInput } from '../messages/messages.schemas.js';

/** A stopped stream whose writer has not finished it within this is ended (abandoned). */
export const STOP_GRACE_MS = 10_000;

export type StreamState = 'open' | 'stopping' | 'finishing' | 'ended';
export type StreamEnd = 'finished' | 'stopped' | 'incomplete' | 'abandoned';

/** What never changes after the open: who writes, what it will post, and who may read it. */
export interface StreamInfo {
  stream_id: string;
  writer: LiveUser;
  /** The input the finish posts, with the chunks joined as its content. */
  input: MessageInput;
  /** The finished message's viewers: writer, every receiver (CC and BCC), the channels' members. */
  uids: string[];
  /** Its BCC receivers, to whom nobody else is shown as a reader (the stopper of a stream). */
  bcc_uids: string[];
  channel_ids: string[];
  public: boolean;
  parent_id: string | null;
  /**
   * Who is shown parent_id in stream frames: the parent's author and CC recipients and the members
   * of its channels (who surely see it); everyone when it is public. Others get null, as a reply's
   * parent_id is null for one who cannot see the parent.
   */
  parent_uids: string[];
  parent_channel_ids: string[];
  parent_public: boolean;
  started_at: string;
}

/** The state that changes. */
export interface StreamStatus {
  state: StreamState;
  seq: number;
  length: number;
  updated_at: string;
  stop: { by: LiveUser; at: string } | null;
  ended: StreamEnd | null;
  message_id: string | null;
}

export interface StreamSnapshot {
  info: StreamInfo;
  status: StreamStatus;
  /** Chunks 1..status.seq joined. */
  text: string;
}

/** A chunk as the live bus carries it (stream-board.ts hands it out). */
export interface ChunkNews {
  k: 'chunk';
  stream_id: string;
  after: number;
  seq: number;
  text: string;
}

export type AppendAnswer =
  | { ok: true; seq: number; length: number }
  | {
      ok: false;
      reason: 'not_found' | 'not_writer' | 'stopped' | 'ended' | 'seq_conflict' | 'too_long';
      seq: number;
    };

export type OpenAnswer =
  { opened: true } | { opened: false; existing: string } | { opened: false; full: true };

export interface StreamLimits {
  maxChars: number;
  idleMs: number;
}

export interface StreamStore {
  /**
   * Stores a new stream (seq 0). With `key` (the writer's Idempotency-Key, kept as long as the
   * stream), a stream opened earlier with it answers `existing` and nothing is stored; `full` when
   * the writer already has `maxOpen` open streams.
   */
  open(
    info: StreamInfo,
    maxOpen: number,
    now: number,
    idleMs: number,
    key: string | null,
  ): Promise<OpenAnswer>;
  /** Appends chunk `seq` (the next one, or the last one again with the same text) and publishes it. */
  append(
    streamId: string,
    uid: string,
    seq: number,
    text: string,
    now: number,
    limits: StreamLimits,
  ): Promise<AppendAnswer>;
  snapshot(streamId: string): Promise<StreamSnapshot | null>;
  /** Chunks after `seq` joined, with the seq they reach: a reader's gap filled. */
  textAfter(streamId: string, seq: number): Promise<{ text: string; seq: number } | null>;
  /** Moves the state from one of `from` to `to` with `patch`; answers the status after, or null when it was in none. */
  transition(
    streamId: string,
    from: StreamState[],
    to: StreamState,
    patch: Partial<Pick<StreamStatus, 'stop' | 'ended' | 'message_id'>>,
    now: number,
  ): Promise<StreamStatus | null>;
  /** Ids of streams not ended, with their idle deadlines (ms). */
  listOpen(): Promise<{ stream_id: string; deadline: number }[]>;
  close(): Promise<void>;
}
