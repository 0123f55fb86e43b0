// POST /v1/streams/{id}/stop, GraphQL stopStream: a reader asks the writer to stop. Anyone in the
// audience may (the writer too); a public reader may not. The readers and the writer hear
// `stream.stop_requested` on live connections; the writer's next append answers 409
// stream_stopped, and its finish records the stop. A second stop answers the same, naming the
// first stopper; an ended stream answers 409 stream_ended.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { StreamOutput } from './live.schemas.js';
import { readableStream, streamNotFound, streamView } from './read-streams.js';

export async function stopStream(ctx: AppContext, caller: Caller, streamId: string): Promise<StreamOutput> {
  assertScope(caller, 'messages.write');
  // The answer carries the text written so far: a reader's content, as any read needs.
  assertScope(caller, 'messages.read');
  const { snapshot, standing, view } = await readableStream(ctx, caller, streamId);
  if (standing === 'public') throw streamNotFound();
  if (snapshot.status.state === 'ended' || snapshot.status.state === 'finishing') {
    throw new AppError(
      'stream_ended',
      `This stream has ended${snapshot.status.message_id ? `; its message is ${snapshot.status.message_id}` : ''}.`,
    );
  }
  if (snapshot.status.stop) return view;
  const now = Date.now();
  const stop = { by: { uid: caller.uid, user_tag: caller.userTag }, at: new Date(now).toISOString() };
  const status = await ctx.live.store.transition(streamId, ['open'], 'stopping', { stop }, now);
  // Someone else moved it meanwhile (another stop, the finish): answer as things are now.
  if (!status) return stopStream(ctx, caller, streamId);
  await ctx.live.publish({ k: 'stream_stop', stream_id: streamId, ...stop });
  const channels = new Set(view.channel_ids);
  return streamView({ ...snapshot, status }, caller.uid, channels);
}
