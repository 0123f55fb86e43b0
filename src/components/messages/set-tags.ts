// PATCH /v1/messages/{message_id}/tags and PATCH /v1/messages/tags/batch: anyone who can see a
// message may replace its tag set (tags arrive validated, lower-cased and deduplicated by the
// TagList schema). The batch tags what the caller can see and reports each other id as 404.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { itemError } from './edit-policy.js';
import { editMessages } from './message-updates.js';
import { setTags } from './message-edits-repository.js';
import type { BatchUpdateResponse } from './message-edits.schemas.js';
import { hydrateMessages } from './messages-repository.js';
import type { MessageOutput } from './messages.schemas.js';

export async function setMessageTags(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  tags: string[],
): Promise<MessageOutput> {
  assertScope(caller, 'messages.write');
  return editMessages(ctx, caller, 'tags', async (tx) => {
    const updated = await setTags(tx, caller.uid, [messageId], tags);
    if (updated.length === 0) throw messageNotFound();
    const [message] = await hydrateMessages(tx, { uid: caller.uid }, [messageId], ctx.config.publicUrl);
    if (!message) throw messageNotFound();
    return { result: message, changed: updated };
  });
}

export async function setMessagesTags(
  ctx: AppContext,
  caller: Caller,
  messageIds: string[],
  tags: string[],
): Promise<BatchUpdateResponse> {
  assertScope(caller, 'messages.write');
  return editMessages(ctx, caller, 'tags', async (tx) => {
    const changed = new Set(await setTags(tx, caller.uid, messageIds, tags));
    const updated = messageIds.filter((id) => changed.has(id));
    return {
      result: {
        updated,
        errors: messageIds.filter((id) => !changed.has(id)).map((id) => itemError(id, messageNotFound())),
      },
      changed: updated,
    };
  });
}
