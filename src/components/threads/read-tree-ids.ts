// GET /v1/messages/{message_id}/tree-ids: the visible ids of the thread holding a visible message.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { findThreadIds } from './threads-repository.js';
import type { TreeIdsResponse } from './threads.schemas.js';

export async function readTreeIds(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
): Promise<TreeIdsResponse> {
  assertScope(caller, 'messages.read');
  const thread = (await findThreadIds(ctx.db, caller.uid, [messageId])).get(messageId);
  if (!thread) throw messageNotFound();
  return thread;
}
