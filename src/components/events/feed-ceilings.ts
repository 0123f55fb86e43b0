// How many notification feeds (sockets of /v1/ws/v1 and GraphQL subscriptions, which both open one
// through followNotifications) may be open at once, per account and per client address (security
// finding #12 of 2026-11, and item 4 of the 2026-12-02 review: one account must not cost everyone
// else more than it costs itself, each feed being a send and a judgement per event).
//   - Per account, SKEIN_WS_MAX_SOCKETS_PER_USER: on every instance together with REDIS_URL (leases
//     in Redis, lease-ceiling.ts; a crashed instance's stop counting within three heartbeat
//     intervals), else on this instance.
//   - Per client address, SKEIN_WS_MAX_SOCKETS_PER_ADDRESS: on this instance (many accounts behind
//     one address).
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { CeilingReached } from '../../platform/lease-ceiling.js';

/** Open feeds on this instance per client address. */
const byAddress = new WeakMap<AppContext, Map<string, number>>();

/**
 * Admits one more feed for `uid` from `address`, or throws 429 `rate_limited` (a socket closes with
 * 4429). Answers the function that gives the places back when the feed closes; calling it again
 * does nothing.
 */
export async function admitFeed(ctx: AppContext, uid: string, address: string): Promise<() => void> {
  const { maxSocketsPerUser, maxSocketsPerAddress } = ctx.config.realtime;
  let releaseAccount: () => void;
  try {
    releaseAccount = await ctx.limits.feedsByAccount.admit(uid, maxSocketsPerUser);
  } catch (error) {
    if (!(error instanceof CeilingReached)) throw error;
    throw new AppError(
      'rate_limited',
      `You already have ${error.held} live connections; close one before opening another.`,
    );
  }
  const counts = byAddress.get(ctx) ?? new Map<string, number>();
  byAddress.set(ctx, counts);
  const fromAddress = counts.get(address) ?? 0;
  if (fromAddress >= maxSocketsPerAddress) {
    releaseAccount();
    throw new AppError(
      'rate_limited',
      `Your address already has ${fromAddress} live connections here; close one before opening another.`,
    );
  }
  counts.set(address, fromAddress + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    releaseAccount();
    const now = (counts.get(address) ?? 1) - 1;
    if (now > 0) counts.set(address, now);
    else counts.delete(address);
  };
}
