// PATCH /v1/messages/{message_id}/content: the author or the author's manager replaces a message's
// content (the post's content rule, MessageContent). The content it replaces is kept as a previous
// version (the newest MAX_KEPT_VERSIONS), `edited_at` is set, and the message's audience hears
// `message.updated` with the change `content`. Content identical to the current one changes nothing:
// no version, no new edited_at, no event; the answer is the message as it is.
// GET /v1/messages/{message_id}/edits: the previous versions, oldest first, for anyone who can see
// the message (the same 404 otherwise).
//
// An edit neither pings the users it newly mentions nor changes who can see the message: mentions
// are read when a message is posted (docs/decisions/014-message-content-edits.md).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { assertMayEdit, editedMessage } from './edit-policy.js';
import { MAX_KEPT_VERSIONS, type MessageEdits } from './message-edits.schemas.js';
import { listVersions, lockContent, setContent } from './message-edits-repository.js';
import { editMessages } from './message-updates.js';
import type { MessageOutput } from './messages.schemas.js';

export async function editMessageContent(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  content: string,
): Promise<MessageOutput> {
  assertScope(caller, 'messages.write');
  return editMessages(ctx, caller, 'content', async (tx) => {
    // Locked first, so the authorship check and the replaced content are read under the lock.
    if (!(await lockContent(tx, caller.uid, messageId))) throw messageNotFound();
    const target = await assertMayEdit(tx, caller, messageId);
    const changed = await setContent(tx, caller.uid, messageId, content, MAX_KEPT_VERSIONS);
    return { result: await editedMessage(ctx, tx, caller, target), changed: changed ? [messageId] : [] };
  });
}

export async function listMessageEdits(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
): Promise<MessageEdits> {
  assertScope(caller, 'messages.read');
  const edits = await listVersions(ctx.db, caller.uid, messageId);
  if (!edits) throw messageNotFound();
  return { message_id: messageId, edits };
}
