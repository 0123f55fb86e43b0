// GET /v1/messages/unread: how many messages addressed to the caller (a receivers edge, CC or BCC)
// are still unread, in total and per thread. Read state lives on receivers edges
// (POST /v1/messages/{id}/read), so a message the caller merely sees (its own, a public one, a
// channel's) is never unread.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { unreadCounts } from './threads-repository.js';
import type { UnreadCountsResponse, UnreadQuery } from './threads.schemas.js';

export async function countUnread(
  ctx: AppContext,
  caller: Caller,
  query: UnreadQuery,
): Promise<UnreadCountsResponse> {
  assertScope(caller, 'messages.read');
  const counts = await unreadCounts(ctx.db, caller.uid, query);
  return {
    ...counts,
    skip: query.skip,
    limit: query.limit,
    has_more: counts.total_threads > query.skip + counts.threads.length,
  };
}
