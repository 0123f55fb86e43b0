// Posts enter Neo4j a few at a time, in two lanes: posts into channels, and the rest. When more
// posts arrive than Neo4j can write at once, the rest wait here in order instead of all running
// together in Neo4j, where every transaction slows every other; and a post into a channel, which
// every listening member waits for, never waits behind a queue of direct posts. Measured with
// `npm run bench -- --only post,fanout` (2026-11-29, 2 cores, 16 clients posting direct messages
// while a channel post reaches 1,000 sockets): the channel post's last frame went from p50 168 /
// p99 313 ms to 80 / 108 ms (48 / 56 with the embedded JVM at nice 10, embedded-neo4j.ts); one
// lane for both was worse at p99 (1,349 ms: the channel post queued behind direct posts stalled at
// the JVM's first compilation of their path). docs/decisions/029-post-lanes-and-cpu-priority.md.
import pLimit, { type LimitFunction } from 'p-limit';
import type { AppContext } from '../../platform/context.js';

interface Lanes {
  channel: LimitFunction;
  direct: LimitFunction;
}

const lanesOf = new WeakMap<AppContext, Lanes>();

/**
 * Runs a post's write transaction (with its retries after transient errors) in its lane: the
 * channel lane when any item names a channel in channel_ids. At most SKEIN_POST_WRITERS run at once
 * in each lane; the others wait their turn. (A post that postMessages tries again, its parent gone
 * or an id taken, queues again.)
 */
export function inPostLane<T>(ctx: AppContext, rawItems: unknown[], write: () => Promise<T>): Promise<T> {
  let lanes = lanesOf.get(ctx);
  if (!lanes) {
    lanes = { channel: pLimit(ctx.config.postWriters), direct: pLimit(ctx.config.postWriters) };
    lanesOf.set(ctx, lanes);
  }
  const lane = rawItems.some(namesChannel) ? 'channel' : 'direct';
  ctx.metrics.postsWaiting.inc({ lane });
  return lanes[lane](() => {
    ctx.metrics.postsWaiting.dec({ lane });
    return write();
  });
}

/** Read before validation, which runs in the lane: only the choice of lane depends on it. */
function namesChannel(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const ids = (item as { channel_ids?: unknown }).channel_ids;
  return Array.isArray(ids) && ids.length > 0;
}
