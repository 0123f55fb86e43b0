// A connection that asked for live frames joins this instance's live router: it first receives the
// typing signals active for it and the open streams it may read with their text so far (after
// everything handed out before it joined), then every live frame of its audience, in order.
import type { AppContext } from '../../platform/context.js';
import type { LiveReader } from './live-router.js';

/** Joins; answers the function that leaves. */
export function joinLive(
  ctx: AppContext,
  uid: string,
  follows: (channelId: string) => boolean,
  send: (frame: object) => void,
): () => void {
  const reader: LiveReader = { uid, follows, send };
  ctx.live.router.add(reader);
  ctx.live.router.inOrder(() => {
    for (const frame of ctx.live.typing.snapshotFor(reader)) send(frame);
    ctx.live.streams.join(reader);
  });
  return () => ctx.live.router.remove(reader);
}
