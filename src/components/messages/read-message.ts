// GET /v1/messages/{message_id}: one message as the caller sees it (404 when missing or invisible).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { MessageOutput } from './messages.schemas.js';
import { assertVisibleMessage } from './visibility-policy.js';

export async function readMessage(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
): Promise<MessageOutput> {
  assertScope(caller, 'messages.read');
  return assertVisibleMessage(ctx, caller, messageId);
}
