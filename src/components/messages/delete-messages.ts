// DELETE /v1/messages/{message_id} and DELETE /v1/messages/batch. Only the author or one of the
// author's managers may delete (no admin override); a message the caller cannot see is the same
// 404 as a missing one. Without delete_descendants the reply children stay and each becomes the
// root of its own thread; with it the whole reply subtree goes, and only when the caller may
// delete every message in it (403 and nothing deleted otherwise). Check and delete run in one
// transaction, after the subtrees are locked: a reply racing the deletion either is in the subtree
// (and counts for the all-or-nothing check, and is re-rooted or deleted with it) or waits and then
// finds its parent gone (404). Who could see a deleted message gets `message.deleted`.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, messageNotFound } from '../../platform/errors.js';
import type { Tx } from '../../platform/neo4j/database.js';
import { authorshipRefusal, itemError } from './edit-policy.js';
import { announceEvents, recordMessageChange } from '../event-log/record-events.js';
import {
  deleteMessages as deleteInGraph,
  findDeletionTargets,
  lockSubtrees,
} from './message-edits-repository.js';
import type { BatchDeleteResponse, BatchItemError, DeleteResponse } from './message-edits.schemas.js';

export async function deleteMessage(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  withDescendants: boolean,
): Promise<DeleteResponse> {
  assertScope(caller, 'messages.write');
  const response = await ctx.db.inWrite(async (tx) => {
    const plan = await planDeletion(tx, caller, [messageId], withDescendants);
    const refusal = plan.refusals[0];
    if (refusal) throw refusal.error;
    await deleteAndTell(tx, caller, plan.deleted);
    return { deleted: plan.deleted };
  });
  await announceEvents(ctx);
  return response;
}

/** Deletes what the caller may delete and reports every other id as an item error. */
export async function deleteMessagesBatch(
  ctx: AppContext,
  caller: Caller,
  messageIds: string[],
  withDescendants: boolean,
): Promise<BatchDeleteResponse> {
  assertScope(caller, 'messages.write');
  const response = await ctx.db.inWrite(async (tx) => {
    const plan = await planDeletion(tx, caller, messageIds, withDescendants);
    await deleteAndTell(tx, caller, plan.deleted);
    const errors: BatchItemError[] = plan.refusals.map(({ id, error }) => itemError(id, error));
    return { deleted: plan.deleted, errors };
  });
  await announceEvents(ctx);
  return response;
}

async function deleteAndTell(tx: Tx, caller: Caller, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  // The audience is read before the messages (and their edges) are gone.
  await recordMessageChange(tx, caller.uid, 'message.deleted', ids);
  await deleteInGraph(tx, caller.uid, ids);
}

interface DeletionPlan {
  /** Requested ids the caller may delete, each followed by its subtree when asked; no repeats. */
  deleted: string[];
  refusals: { id: string; error: AppError }[];
}

async function planDeletion(
  tx: Tx,
  caller: Caller,
  ids: string[],
  withDescendants: boolean,
): Promise<DeletionPlan> {
  await lockSubtrees(tx, ids);
  const targets = await findDeletionTargets(tx, caller.uid, ids, withDescendants);
  const deleted = new Set<string>();
  const refusals: DeletionPlan['refusals'] = [];
  for (const id of ids) {
    const target = targets.get(id);
    const refusal = authorshipRefusal(target, caller);
    if (refusal || !target) {
      refusals.push({ id, error: refusal ?? messageNotFound() });
      continue;
    }
    // A descendant the caller cannot see counts as one it may not delete: deleting it would
    // reveal it, and listing its id in the answer would too.
    const blocked = target.descendants.some((d) => !d.visible || authorshipRefusal(d, caller) !== null);
    if (blocked) {
      refusals.push({
        id,
        error: new AppError(
          'not_author',
          'You may not delete every message below this one, so nothing of it was deleted.',
        ),
      });
      continue;
    }
    deleted.add(id);
    for (const d of target.descendants) deleted.add(d.id);
  }
  return { deleted: [...deleted], refusals };
}
