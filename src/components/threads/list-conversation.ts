// GET /v1/messages/conversation/{uid}: the messages between the caller and one other user across
// threads (each one the author, the other a recipient), newest first, paginated.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { assertUserExists } from '../users/read-users.js';
import { conversationPage } from './threads-repository.js';
import type { ConversationQuery } from './threads.schemas.js';
import { viewPage } from './view-page.js';

export async function listConversation(
  ctx: AppContext,
  caller: Caller,
  otherUid: string,
  query: ConversationQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  // Both at once: for an unknown uid the page is merely empty, and the check's 404 wins.
  const [, page] = await Promise.all([
    assertUserExists(ctx, otherUid),
    viewPage(ctx, { uid: caller.uid }, conversationPage(caller.uid, otherUid, query), query),
  ]);
  return page;
}
