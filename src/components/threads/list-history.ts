// GET /v1/messages/history: the threads the caller wrote in, by the caller's latest activity.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { historyIds } from './threads-repository.js';
import type { HistoryQuery } from './threads.schemas.js';
import { channelFilterOf, messagePage } from './view-page.js';

export async function listHistory(
  ctx: AppContext,
  caller: Caller,
  query: HistoryQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  const channelId = await channelFilterOf(ctx, caller, query.channel_id);
  const ids = await historyIds(ctx.db, caller.uid, channelId, query);
  return messagePage(ctx, { uid: caller.uid }, ids, query);
}
