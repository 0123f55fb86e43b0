// GET /v1/messages/timeline: every message the caller may see, newest first.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { timelinePage } from './threads-repository.js';
import type { TimelineQuery } from './threads.schemas.js';
import { channelFilterOf, viewPage } from './view-page.js';

export async function listTimeline(
  ctx: AppContext,
  caller: Caller,
  query: TimelineQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  const channelId = await channelFilterOf(ctx, caller, query.channel_id);
  return viewPage(ctx, { uid: caller.uid }, timelinePage(caller.uid, channelId, query), query);
}
