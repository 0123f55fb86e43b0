// GET /v1/messages/inbox: the newest visible message of each thread the caller receives or sent to
// others, newest first.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { inboxPage } from './threads-repository.js';
import type { InboxQuery } from './threads.schemas.js';
import { channelFilterOf, viewPage } from './view-page.js';

export async function listInbox(
  ctx: AppContext,
  caller: Caller,
  query: InboxQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  const channelId = await channelFilterOf(ctx, caller, query.channel_id);
  const page = inboxPage(caller.uid, { channelId, unreadOnly: query.unread_only }, query);
  return viewPage(ctx, { uid: caller.uid }, page, query);
}
