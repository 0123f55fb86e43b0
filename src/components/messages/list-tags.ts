// GET /v1/messages/tags: the distinct tags, sorted, of every message the caller can see.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { listTags as listVisibleTags } from './message-edits-repository.js';

export async function listTags(ctx: AppContext, caller: Caller): Promise<string[]> {
  assertScope(caller, 'messages.read');
  return listVisibleTags(ctx.db, caller.uid);
}
