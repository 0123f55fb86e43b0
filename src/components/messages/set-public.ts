// PATCH /v1/messages/{message_id}/public and PATCH /v1/messages/public/batch: the author or the
// author's manager turns public readability on or off. The batch sets what it may and reports
// each other id (404 missing or invisible, 403 not author or manager), in one transaction.
// Making messages private also ends, in that transaction, the channel inclusions that strangers
// could only make because the messages were public (end-public-inclusions.ts, finding #11).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { endPublicOnlyInclusions } from '../channels/end-public-inclusions.js';
import { assertMayEdit, editedMessage, partitionEditable } from './edit-policy.js';
import { setPublic } from './message-edits-repository.js';
import type { BatchUpdateResponse } from './message-edits.schemas.js';
import type { MessageOutput } from './messages.schemas.js';
import { editMessages } from './message-updates.js';

export async function setMessagePublic(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  isPublic: boolean,
): Promise<MessageOutput> {
  assertScope(caller, 'messages.write');
  return editMessages(ctx, caller, 'public', async (tx) => {
    const target = await assertMayEdit(tx, caller, messageId);
    await setPublic(tx, caller.uid, [messageId], isPublic);
    if (!isPublic) await endPublicOnlyInclusions(tx, caller.uid, [messageId]);
    return { result: await editedMessage(ctx, tx, caller, target), changed: [messageId] };
  });
}

export async function setMessagesPublic(
  ctx: AppContext,
  caller: Caller,
  messageIds: string[],
  isPublic: boolean,
): Promise<BatchUpdateResponse> {
  assertScope(caller, 'messages.write');
  return editMessages(ctx, caller, 'public', async (tx) => {
    const { allowed, errors } = await partitionEditable(tx, caller, messageIds);
    const updated = allowed.length > 0 ? await setPublic(tx, caller.uid, allowed, isPublic) : [];
    if (!isPublic) await endPublicOnlyInclusions(tx, caller.uid, updated);
    const changed = allowed.filter((id) => updated.includes(id));
    return { result: { updated: changed, errors }, changed };
  });
}
