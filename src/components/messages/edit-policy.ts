// Who may edit which message, for the edit use cases: the message must be visible to the caller
// (else the one 404), and for author-only edits the caller must be its author or one of the
// author's managers (visibility-policy.ts holds that rule; no admin override). Batch operations
// turn each refusal into an item error instead of failing the whole request.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import type { AppError } from '../../platform/errors.js';
import { messageNotFound } from '../../platform/errors.js';
import type { Tx } from '../../platform/neo4j/database.js';
import type { BatchItemError } from './message-edits.schemas.js';
import { findEditTargets, type Authorship, type EditTarget } from './message-edits-repository.js';
import { hydrateMessages } from './messages-repository.js';
import type { MessageOutput } from './messages.schemas.js';
import { isAuthorOrManager, notAuthorError } from './visibility-policy.js';

/** The refusal for one message, or null when the caller is its author or the author's manager. */
export function authorshipRefusal(target: Authorship | undefined, caller: Caller): AppError | null {
  if (!target) return messageNotFound();
  if (isAuthorOrManager(target, caller)) return null;
  return notAuthorError();
}

export function itemError(messageId: string, error: AppError): BatchItemError {
  return { message_id: messageId, status: error.status, code: error.code, detail: error.message };
}

/** Inside the edit's transaction: the message, when visible and the caller may make author-only edits. */
export async function assertMayEdit(tx: Tx, caller: Caller, messageId: string): Promise<EditTarget> {
  const target = (await findEditTargets(tx, caller.uid, [messageId])).get(messageId);
  const refusal = authorshipRefusal(target, caller);
  if (refusal) throw refusal;
  return target!;
}

/**
 * Splits a batch into the ids the caller may make author-only edits on and an error for each
 * other one (404 missing or invisible, 403 not author or manager).
 */
export async function partitionEditable(
  tx: Tx,
  caller: Caller,
  ids: string[],
): Promise<{ allowed: string[]; errors: BatchItemError[] }> {
  const targets = await findEditTargets(tx, caller.uid, ids);
  const allowed: string[] = [];
  const errors: BatchItemError[] = [];
  for (const id of ids) {
    const refusal = authorshipRefusal(targets.get(id), caller);
    if (refusal) errors.push(itemError(id, refusal));
    else allowed.push(id);
  }
  return { allowed, errors };
}

/**
 * The edited message as the caller now sees it. A manager who could see its bot's message only
 * because it was public, and just made it private, gets the author's view: a manager may act as
 * its bot and read everything the bot reads, so this shows it nothing new.
 */
export async function editedMessage(
  ctx: AppContext,
  tx: Tx,
  caller: Caller,
  target: Authorship,
): Promise<MessageOutput> {
  const publicUrl = ctx.config.publicUrl;
  const [asCaller] = await hydrateMessages(tx, { uid: caller.uid }, [target.id], publicUrl);
  if (asCaller) return asCaller;
  const [asAuthor] = await hydrateMessages(tx, { uid: target.author_uid }, [target.id], publicUrl);
  if (!asAuthor) throw messageNotFound();
  // What only the viewer's own edges say (saved, reacted) is the caller's, who has none it may see.
  return {
    ...asAuthor,
    is_saved: false,
    reactions: asAuthor.reactions.map((reaction) => ({ ...reaction, me: false })),
  };
}
