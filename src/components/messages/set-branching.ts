// PATCH /v1/messages/{message_id}/reply_order and PATCH /v1/messages/{message_id}/default_outgoing:
// the author or the author's manager curates how a message branches. Both name children of the
// message, that is its reply children and stitch children the caller can see now (422 otherwise);
// null clears. Once stored, a child deleted later or turned invisible drops out of the output
// (message-output.ts), so neither field ever shows an id the viewer may not see.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, messageNotFound } from '../../platform/errors.js';
import type { Tx } from '../../platform/neo4j/database.js';
import { assertMayEdit, editedMessage } from './edit-policy.js';
import { setDefaultOutgoing, setReplyOrder } from './message-edits-repository.js';
import { hydrateMessages } from './messages-repository.js';
import type { MessageOutput } from './messages.schemas.js';
import { editMessages } from './message-updates.js';

export async function setMessageReplyOrder(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  replyOrder: string[] | null,
): Promise<MessageOutput> {
  assertScope(caller, 'messages.write');
  return editMessages(ctx, caller, 'reply_order', async (tx) => {
    const target = await assertMayEdit(tx, caller, messageId);
    if (replyOrder !== null) {
      const children = await visibleChildren(ctx, tx, caller, messageId);
      const seen = new Set<string>();
      const wrong = replyOrder.filter((id) => {
        const bad = !children.has(id) || seen.has(id);
        seen.add(id);
        return bad;
      });
      if (wrong.length > 0) {
        throw new AppError(
          'invalid_reply_ids',
          `Not a child of this message you can see, or repeated: ${[...new Set(wrong)].slice(0, 10).join(', ')}.`,
        );
      }
    }
    await setReplyOrder(tx, caller.uid, messageId, replyOrder);
    return { result: await editedMessage(ctx, tx, caller, target), changed: [messageId] };
  });
}

export async function setMessageDefaultOutgoing(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  defaultOutgoing: string | null,
): Promise<MessageOutput> {
  assertScope(caller, 'messages.write');
  return editMessages(ctx, caller, 'default_outgoing', async (tx) => {
    const target = await assertMayEdit(tx, caller, messageId);
    if (
      defaultOutgoing !== null &&
      !(await visibleChildren(ctx, tx, caller, messageId)).has(defaultOutgoing)
    ) {
      throw new AppError(
        'invalid_default_outgoing',
        `Not a reply or stitch child of this message you can see: ${defaultOutgoing}.`,
      );
    }
    await setDefaultOutgoing(tx, caller.uid, messageId, defaultOutgoing);
    return { result: await editedMessage(ctx, tx, caller, target), changed: [messageId] };
  });
}

/** Reply and stitch children of the message that the caller can see, as hydration lists them. */
async function visibleChildren(
  ctx: AppContext,
  tx: Tx,
  caller: Caller,
  messageId: string,
): Promise<Set<string>> {
  const [message] = await hydrateMessages(tx, { uid: caller.uid }, [messageId], ctx.config.publicUrl);
  if (!message) throw messageNotFound();
  return new Set([...message.reply_ids, ...message.stitch_child_ids]);
}
