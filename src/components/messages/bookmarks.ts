// PUT and DELETE /v1/messages/{message_id}/bookmark, GET /v1/messages/bookmarks: a caller's saved
// messages. Saving is idempotent (the first saved_at stays); only a message the caller can see may
// be saved or unsaved (404 otherwise), and the list shows only those it can still see.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { addBookmark, listBookmarkIds, removeBookmark } from './message-edits-repository.js';
import type { BookmarkState } from './message-edits.schemas.js';
import { hydrateMessages } from './messages-repository.js';
import type { PaginatedMessages } from './messages.schemas.js';

export async function bookmarkMessage(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
): Promise<BookmarkState> {
  assertScope(caller, 'messages.write');
  const savedAt = await addBookmark(ctx.db, caller.uid, messageId);
  if (savedAt === null) throw messageNotFound();
  return { message_id: messageId, saved: true, saved_at: savedAt };
}

export async function unbookmarkMessage(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
): Promise<BookmarkState> {
  assertScope(caller, 'messages.write');
  if (!(await removeBookmark(ctx.db, caller.uid, messageId))) throw messageNotFound();
  return { message_id: messageId, saved: false };
}

export async function listBookmarks(
  ctx: AppContext,
  caller: Caller,
  page: { skip: number; limit: number },
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  const { ids, has_more } = await listBookmarkIds(ctx.db, caller.uid, page);
  const messages = await hydrateMessages(ctx.db, { uid: caller.uid }, ids, ctx.config.publicUrl);
  return { messages, skip: page.skip, limit: page.limit, has_more };
}
