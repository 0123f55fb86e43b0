// GET /v1/streams/{id}, GET /v1/streams (GraphQL stream, streams): open streams as the caller may
// read them. A stream is read by the finished message's viewers (writer, receivers, members of its
// channels) and, when it will be public, by anyone signed in; to anyone else it does not exist (404
// stream_not_found, as for a missing one). Ended streams are answered ENDED_KEPT_MS more.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { listMemberships } from '../events/events-repository.js';
import type { StreamOutput, StreamsQuery } from './live.schemas.js';
import { showsParent, showsStopper } from './stream-frames.js';
import type { StreamInfo, StreamSnapshot } from './stream-store.js';

/** At most this many streams in one list. */
const MAX_LISTED = 100;

export function streamNotFound(): AppError {
  return new AppError('stream_not_found', 'Stream not found.');
}

/** How the caller stands to a stream: its writer, in its audience, a public reader, or nobody. */
export type Standing = 'writer' | 'audience' | 'public' | null;

/** One read at most (the caller's channels), only when the caller is not named. */
export async function standingOf(
  ctx: AppContext,
  caller: Caller,
  info: StreamInfo,
  channels?: ReadonlySet<string>,
): Promise<{ standing: Standing; channels: ReadonlySet<string> }> {
  if (caller.uid === info.writer.uid) return { standing: 'writer', channels: new Set(info.channel_ids) };
  const mine =
    channels ?? new Set(info.channel_ids.length > 0 ? await listMemberships(ctx.db, caller.uid) : []);
  if (info.uids.includes(caller.uid) || info.channel_ids.some((id) => mine.has(id)))
    return { standing: 'audience', channels: mine };
  return { standing: info.public ? 'public' : null, channels: mine };
}

export function streamView(
  snapshot: StreamSnapshot,
  uid: string,
  channels: ReadonlySet<string>,
): StreamOutput {
  const { info, status, text } = snapshot;
  const follows = (channelId: string) => channels.has(channelId);
  return {
    stream_id: info.stream_id,
    state: status.state,
    author: info.writer,
    parent_id: info.parent_id !== null && showsParent(info, uid, follows) ? info.parent_id : null,
    channel_ids: uid === info.writer.uid ? info.channel_ids : info.channel_ids.filter(follows),
    public: info.public,
    seq: status.seq,
    length: status.length,
    text,
    started_at: info.started_at,
    updated_at: status.updated_at,
    stop: status.stop && {
      by: showsStopper(info, status.stop.by, uid) ? status.stop.by : null,
      at: status.stop.at,
    },
    ended: status.ended,
    message_id: status.message_id,
  };
}

/** The stream as the caller may read it, with the caller's standing; 404 when it may not. */
export async function readableStream(
  ctx: AppContext,
  caller: Caller,
  streamId: string,
): Promise<{ snapshot: StreamSnapshot; standing: Exclude<Standing, null>; view: StreamOutput }> {
  const snapshot = await ctx.live.store.snapshot(streamId);
  if (!snapshot) throw streamNotFound();
  const { standing, channels } = await standingOf(ctx, caller, snapshot.info);
  if (standing === null) throw streamNotFound();
  return { snapshot, standing, view: streamView(snapshot, caller.uid, channels) };
}

export async function readStream(ctx: AppContext, caller: Caller, streamId: string): Promise<StreamOutput> {
  assertScope(caller, 'messages.read');
  return (await readableStream(ctx, caller, streamId)).view;
}

/** Open streams the caller may read, newest first, narrowed to a parent or a channel. */
export async function listStreams(
  ctx: AppContext,
  caller: Caller,
  query: StreamsQuery,
): Promise<{ streams: StreamOutput[] }> {
  assertScope(caller, 'messages.read');
  const candidates = ctx.live.streams
    .open()
    .filter(
      (info) =>
        (query.parent_id === undefined || info.parent_id === query.parent_id) &&
        (query.channel_id === undefined || info.channel_ids.includes(query.channel_id)),
    );
  let channels: ReadonlySet<string> | undefined;
  const streams: StreamOutput[] = [];
  for (const info of candidates.sort((a, b) => b.started_at.localeCompare(a.started_at))) {
    if (streams.length >= MAX_LISTED) break;
    const judged = await standingOf(ctx, caller, info, channels);
    channels = judged.channels;
    if (judged.standing === null) continue;
    // A channel filter lists only what the caller reads there, not public streams elsewhere.
    if (query.channel_id !== undefined && !channels.has(query.channel_id) && judged.standing !== 'writer')
      continue;
    const snapshot = await ctx.live.store.snapshot(info.stream_id);
    if (snapshot && snapshot.status.state !== 'ended')
      streams.push(streamView(snapshot, caller.uid, channels));
  }
  return { streams };
}
