// POST /v1/messages/{message_id}/thread/read: marks read, in one call, every message of the thread
// holding message_id that is addressed to the caller and still unread (what "mark all as read" on
// a thread does in a chat client). The caller must be able to see message_id; messages of the
// thread addressed to others are not touched.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { markThreadRead as markRead } from './threads-repository.js';
import type { ThreadReadResponse } from './threads.schemas.js';

export async function markThreadRead(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
): Promise<ThreadReadResponse> {
  assertScope(caller, 'messages.write');
  const marked = await markRead(ctx.db, caller.uid, messageId);
  if (marked === null) throw messageNotFound();
  return { message_id: messageId, marked_read: marked };
}
