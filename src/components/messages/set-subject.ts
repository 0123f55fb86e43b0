// PATCH /v1/messages/{message_id}/subject: the author or the author's manager adds a subject to a
// message that has none. A subject is set once and never changed (400 subject_already_set); a
// blank one is 400; longer than 72 characters is a 422 from the body schema.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { assertMayEdit, editedMessage } from './edit-policy.js';
import { editMessages } from './message-updates.js';
import { setSubject } from './message-edits-repository.js';
import type { MessageOutput } from './messages.schemas.js';

export async function setMessageSubject(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  subject: string,
): Promise<MessageOutput> {
  assertScope(caller, 'messages.write');
  const text = subject.trim();
  if (text.length === 0) throw new AppError('bad_request', 'The subject must not be blank.');
  return editMessages(ctx, caller, 'subject', async (tx) => {
    const target = await assertMayEdit(tx, caller, messageId);
    // The write re-checks "no subject yet", so a concurrent first subject is not overwritten.
    if (target.subject !== null || !(await setSubject(tx, caller.uid, messageId, text))) {
      throw new AppError('subject_already_set', 'This message already has a subject; it cannot be changed.');
    }
    return { result: await editedMessage(ctx, tx, caller, target), changed: [messageId] };
  });
}
