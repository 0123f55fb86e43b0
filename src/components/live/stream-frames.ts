// The frames of streamed replies (decision 031), as each reader is shown them.
import type { LiveUser } from './live-frames.js';
import type { LiveReader } from './live-router.js';
import type { StreamEnd, StreamInfo } from './stream-store.js';

export interface StreamOpenedFrame {
  type: 'stream.opened';
  stream_id: string;
  author: LiveUser;
  /** Null for a reader who may not see the parent. */
  parent_id: string | null;
  /** The stream's channels this reader follows. */
  channel_ids: string[];
  public: boolean;
  started_at: string;
  /** What has been written so far: chunks 1..seq joined. */
  seq: number;
  text: string;
  /**
   * Set when the text so far is larger than one frame may carry (SKEIN_EVENT_MAX_BYTES): `text` is
   * then empty; read it with GET /v1/streams/{stream_id} and go on with the frames after its seq.
   */
  text_truncated?: true;
  stop: { by: LiveUser | null; at: string } | null;
}

export interface StreamAppendedFrame {
  type: 'stream.appended';
  stream_id: string;
  /** The chunks after `after` up to `seq`, joined: append `text` when `after` is the last seq you have. */
  after: number;
  seq: number;
  text: string;
}

export interface StreamStopRequestedFrame {
  type: 'stream.stop_requested';
  stream_id: string;
  /** Null for a reader who may not know the stopper (a BCC recipient stopped it). */
  by: LiveUser | null;
  at: string;
}

export interface StreamEndedFrame {
  type: 'stream.ended';
  stream_id: string;
  ended: StreamEnd;
  /** The finished message (null when the stream left none). */
  message_id: string | null;
  seq: number;
}

/** Whether this reader is shown the parent (StreamInfo.parent_uids). */
export function showsParent(info: StreamInfo, uid: string, follows: (channelId: string) => boolean): boolean {
  return (
    info.parent_public ||
    uid === info.writer.uid ||
    info.parent_uids.includes(uid) ||
    info.parent_channel_ids.some(follows)
  );
}

/** Whether this reader is shown who stopped the stream: not a BCC recipient's stop, except to the writer and the stopper. */
export function showsStopper(info: StreamInfo, stopper: LiveUser, uid: string): boolean {
  return !info.bcc_uids.includes(stopper.uid) || uid === info.writer.uid || uid === stopper.uid;
}

export function openedFrame(
  info: StreamInfo,
  reader: Pick<LiveReader, 'uid' | 'follows'>,
  seq: number,
  text: string,
  stop: { by: LiveUser; at: string } | null,
  maxTextBytes = Infinity,
): StreamOpenedFrame {
  const follows = (channelId: string) => reader.follows(channelId);
  // Never a frame a client cannot take (security review 2026-12-02, finding 2): a long text is read apart.
  const tooLarge = Buffer.byteLength(JSON.stringify(text)) > maxTextBytes;
  return {
    ...(tooLarge ? { text_truncated: true as const } : {}),
    type: 'stream.opened',
    stream_id: info.stream_id,
    author: info.writer,
    parent_id: info.parent_id !== null && showsParent(info, reader.uid, follows) ? info.parent_id : null,
    channel_ids: info.writer.uid === reader.uid ? info.channel_ids : info.channel_ids.filter(follows),
    public: info.public,
    started_at: info.started_at,
    seq,
    text: tooLarge ? '' : text,
    stop: stop && { by: showsStopper(info, stop.by, reader.uid) ? stop.by : null, at: stop.at },
  };
}
