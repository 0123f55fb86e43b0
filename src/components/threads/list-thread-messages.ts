// GET /v1/messages/{message_id}/thread: the visible messages of the thread holding a visible
// message, oldest first, paginated (a chat view of a long thread).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { threadPageIds } from './threads-repository.js';
import type { ThreadMessagesQuery } from './threads.schemas.js';
import { messagePage } from './view-page.js';

export async function listThreadMessages(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  query: ThreadMessagesQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  const ids = await threadPageIds(ctx.db, caller.uid, messageId, query);
  if (ids === null) throw messageNotFound();
  return messagePage(ctx, { uid: caller.uid }, ids, query);
}
