// GraphQL `subscription live`: the live frames of /v1/ws/v1?live=true over graphql-ws. It follows
// the caller's memberships with a notification feed of its own (counted against
// SKEIN_WS_MAX_SOCKETS_PER_USER like any subscription) whose events it does not hand out: only what
// the feed knows of the caller's channels is used, so a member removed hears nothing more. Frames
// wait here for a slow reader up to MAX_WAITING; past that the subscription ends with
// `slow_consumer` (resubscribing gets the snapshots again: nothing is lost for good).
import type { AppContext } from '../../platform/context.js';
import type { Caller } from '../../platform/auth/caller.js';
import { AppError } from '../../platform/errors.js';
import { followNotifications } from '../events/realtime-feed.js';
import { joinLive } from './join-live.js';

const MAX_WAITING = 1_000;

export async function subscribeLive(
  ctx: AppContext,
  caller: Caller,
  address: string,
  wanted: { typing: boolean; streams: boolean },
): Promise<AsyncIterableIterator<object>> {
  const feed = await followNotifications(ctx, caller, { since: null, address });
  const waiting: object[] = [];
  let wake: (() => void) | null = null;
  let done = false;
  let overflowed = false;
  const leave = joinLive(
    ctx,
    caller.uid,
    (channelId) => feed.follows(channelId),
    (frame) => {
      const type = (frame as { type: string }).type;
      if (done || (type.startsWith('typing.') ? !wanted.typing : !wanted.streams)) return;
      if (waiting.length >= MAX_WAITING) overflowed = true;
      else waiting.push(frame);
      wake?.();
    },
  );
  const finish = () => {
    if (done) return;
    done = true;
    leave();
    feed.close();
    wake?.();
  };
  const iterator: AsyncIterableIterator<object> = {
    next: async () => {
      for (;;) {
        if (overflowed) {
          finish();
          throw new AppError(
            'rate_limited',
            'Too many live frames waiting for you (slow_consumer): subscribe again.',
          );
        }
        const frame = waiting.shift();
        if (frame) return { done: false, value: frame };
        if (done) return { done: true, value: undefined };
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    },
    return: () => {
      finish();
      return Promise.resolve({ done: true, value: undefined });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
