// DELETE /v1/recipients/remove: takes a recipient off messages, optionally off their reply
// descendants too. On each message the author (or the author's manager), whoever added that
// recipient, or the recipient itself may remove the edge. Checked and written in one transaction.
//
// Choices where the spec is silent:
// - A named message where the caller may not remove the edge fails the whole request (403, nothing
//   removed); on descendants (propagate_to_descendants) such edges are skipped and listed as unchanged,
//   so one can clear a branch of everything one is entitled to clear.
// - The walk down passes only through messages the caller can see, like every walk.
// - An edge the caller is shown no entry of (someone else's BCC entry) counts as absent: "unchanged"
//   on a named message, left out on descendants, and left in place, so removing never reveals a
//   hidden recipient nor cuts it off.
// - What goes is the entry the caller is shown (decision 022). The recipient itself, the author and
//   the author's manager take the recipient off altogether; an adder takes off its own entry only,
//   which uncovers a hidden BCC entry it had been laid over: the recipient keeps the access its
//   author or another adder gave it, and the caller sees the same as if there had been none.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { announceEvents } from '../event-log/record-events.js';
import { recordRecipientChange } from './add-recipients.js';
import { AppError, messageNotFound } from '../../platform/errors.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import type { MessageOutput } from '../messages/messages.schemas.js';
import { isAuthorOrManager } from '../messages/visibility-policy.js';
import { namedMessageIds } from './add-recipients.js';
import { deleteReceivers, findRemovalTargets, type Authorship } from './recipients-repository.js';
import type { RecipientChange, RemoveRecipientsResponse } from './recipients.schemas.js';

export interface RemoveRecipientsInput {
  recipient_uid: string;
  message_id?: string | undefined;
  message_ids?: string[] | undefined;
  propagate_to_descendants?: boolean | undefined;
}

export async function removeRecipients(
  ctx: AppContext,
  caller: Caller,
  input: RemoveRecipientsInput,
): Promise<RemoveRecipientsResponse> {
  assertScope(caller, 'messages.write');
  const messageIds = namedMessageIds(input);
  const uid = input.recipient_uid;

  const response = await ctx.db.inWrite(async (tx) => {
    const targets = await findRemovalTargets(tx, caller.uid, {
      message_ids: messageIds,
      recipient_uid: uid,
      propagate: input.propagate_to_descendants ?? false,
    });
    if (targets.named.length !== messageIds.length) throw messageNotFound();
    if (!targets.recipientExists) throw new AppError('user_not_found', `No such user: ${uid}.`);

    const descendants = targets.descendants.filter((id) => !messageIds.includes(id));
    // The messages as the caller sees them: their recipient lists follow the BCC rule.
    const shown = new Map(
      (
        await hydrateMessages(tx, { uid: caller.uid }, [...messageIds, ...descendants], ctx.config.publicUrl)
      ).map((m) => [m.id, m]),
    );
    const entryOf = (id: string) => shown.get(id)?.recipients.find((r) => r.uid === uid);
    // The recipient itself, the author and the author's manager take the recipient off altogether;
    // whoever added the entry the caller is shown may take off that entry.
    const altogether = (id: string) =>
      caller.uid === uid || mayRemoveAsAuthor(targets.authorship.get(id), caller);
    const mayRemove = (id: string, entry: MessageOutput['recipients'][number]) =>
      altogether(id) || entry.added_by === caller.uid;

    const listed: string[] = [];
    const toRemove: RecipientChange[] = [];
    const unchanged: RecipientChange[] = [];
    for (const id of messageIds) {
      listed.push(id);
      const entry = entryOf(id);
      if (!entry) unchanged.push({ message_id: id, uid });
      else if (mayRemove(id, entry)) toRemove.push({ message_id: id, uid });
      else
        throw new AppError(
          'forbidden',
          "Only the message's author (or the author's manager), whoever added the recipient, or the recipient may remove it.",
        );
    }
    for (const id of descendants) {
      const entry = entryOf(id);
      if (!entry) continue;
      listed.push(id);
      (mayRemove(id, entry) ? toRemove : unchanged).push({ message_id: id, uid });
    }

    const removed = await deleteReceivers(
      tx,
      caller.uid,
      toRemove.map((change) => ({ ...change, altogether: altogether(change.message_id) })),
    );
    const gone = new Set(removed.map((r) => r.message_id));
    // An edge removed by a concurrent request in between is simply no longer there.
    for (const change of toRemove) if (!gone.has(change.message_id)) unchanged.push(change);
    const order = (change: RecipientChange) => listed.indexOf(change.message_id);
    const done = toRemove.filter((change) => gone.has(change.message_id));
    await recordRecipientChange(
      tx,
      caller.uid,
      done.map((change) => ({ ...change, public: entryOf(change.message_id)?.public ?? false })),
    );
    return {
      message_ids: listed,
      removed: done,
      unchanged: unchanged.sort((a, b) => order(a) - order(b)),
    };
  });
  await announceEvents(ctx);
  return response;
}

/** The one "author or manager" rule (visibility-policy), asked as a question. */
function mayRemoveAsAuthor(authorship: Authorship | undefined, caller: Caller): boolean {
  return authorship !== undefined && isAuthorOrManager(authorship, caller);
}
