// GET /v1/notifications: the caller's own outbox after a sequence number, for clients that poll or
// that check what a socket missed. Only ever the caller's notifications.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { latestSeq, listNotificationsSince } from './outbox-repository.js';

export async function readNotifications(
  ctx: AppContext,
  caller: Caller,
  query: { since: number; limit: number },
) {
  assertScope(caller, 'messages.read');
  const [page, latest] = await Promise.all([
    listNotificationsSince(ctx.db, caller.uid, query.since, query.limit + 1),
    latestSeq(ctx.db, caller.uid),
  ]);
  return {
    notifications: page
      .slice(0, query.limit)
      .map(({ id, seq, created_at, event }) => ({ id, seq, created_at, event })),
    latest_seq: latest,
    has_more: page.length > query.limit,
  };
}
