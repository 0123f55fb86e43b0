// POST /v1/streams, GraphQL openStream: opens a streamed reply. Its input is a post's (parent,
// recipients, "audience": "parent", channels, public…), judged as a post judges it, with nothing
// written: the errors are the post's. The finished message's viewers (writer, every receiver, the
// channels' members) receive `stream.opened` at once on live connections, then each chunk; typing
// by the writer where it streams ends. Takes one point of the post limit (the route's).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import { newShortId } from '../../platform/auth/secrets.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { planAudience } from '../messages/post-messages.js';
import type { StreamInput, StreamOutput } from './live.schemas.js';
import { streamView } from './read-streams.js';
import type { StreamInfo } from './stream-store.js';
import { appendChunk } from './write-stream.js';

/** With an Idempotency-Key, the same key from the same writer answers the stream it opened, while it is kept. */
export async function openStream(
  ctx: AppContext,
  caller: Caller,
  input: StreamInput,
  idempotencyKey?: string,
): Promise<StreamOutput> {
  assertScope(caller, 'messages.write');
  const { content, ...rest } = input;
  const message = { ...rest, content: '' };
  const planned = await planAudience(ctx, caller, message);
  const parent = planned.parent;
  const now = Date.now();
  const info: StreamInfo = {
    stream_id: newShortId(),
    writer: { uid: caller.uid, user_tag: caller.userTag },
    input: message,
    uids: [...new Set([caller.uid, ...planned.receivers.map((r) => r.uid)])],
    bcc_uids: planned.receivers.filter((r) => !r.public).map((r) => r.uid),
    channel_ids: planned.channel_ids,
    public: input.public,
    parent_id: parent?.id ?? null,
    parent_uids: parent ? [parent.author_uid, ...parent.cc_uids] : [],
    parent_channel_ids: parent?.channel_ids ?? [],
    // Not known without another read: a public parent is shown to whom it surely is.
    parent_public: false,
    started_at: new Date(now).toISOString(),
  };
  const { idleMs, maxOpenPerUser } = ctx.config.streams;
  const opened = await ctx.live.store.open(info, maxOpenPerUser, now, idleMs, idempotencyKey ?? null);
  if ('existing' in opened) {
    // Opened already with this key (a retried request): the same stream, as it is now.
    const earlier = await ctx.live.store.snapshot(opened.existing);
    if (earlier) return streamView(earlier, caller.uid, new Set(earlier.info.channel_ids));
    throw new AppError('unavailable', 'The stream store did not keep the stream; try again.');
  }
  if (!opened.opened) {
    throw new AppError(
      'rate_limited',
      `You already have ${maxOpenPerUser} streams open; finish one first (SKEIN_MAX_OPEN_STREAMS_PER_USER).`,
      { headers: { 'Retry-After': String(Math.ceil(idleMs / 1000)) } },
    );
  }
  await ctx.live.publish({ k: 'stream_opened', info });
  // Where it streams, it no longer types.
  ctx.events.landed.tell({
    uid: caller.uid,
    parent_ids: parent ? [parent.id] : [],
    channel_ids: planned.channel_ids,
    conversations: parent || planned.channel_ids.length > 0 ? [] : [info.uids.slice().sort()],
  });
  if (content.length > 0) await appendChunk(ctx, caller, info.stream_id, { seq: 1, text: content });
  const snapshot = await ctx.live.store.snapshot(info.stream_id);
  if (!snapshot) throw new AppError('unavailable', 'The stream store did not keep the stream; try again.');
  return streamView(snapshot, caller.uid, new Set(info.channel_ids));
}
