// GET /v1/messages/history: the threads the caller wrote in, by the caller's latest activity.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { historyPage } from './threads-repository.js';
import type { HistoryQuery } from './threads.schemas.js';
import { channelFilterOf, viewPage } from './view-page.js';

export async function listHistory(
  ctx: AppContext,
  caller: Caller,
  query: HistoryQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  const channelId = await channelFilterOf(ctx, caller, query.channel_id);
  return viewPage(ctx, { uid: caller.uid }, historyPage(caller.uid, channelId, query), query);
}
