// POST /v1/recipients/add: anyone who can see a message may add recipients (CC or BCC) to it, and
// with the deprecated propagation to its visible ancestors or its whole visible thread. Idempotent:
// an entry the caller is shown keeps its first adder and its CC/BCC flag, and identical adds racing
// each other answer `added` once (the messages are locked first). A recipient the caller is shown no
// entry of, because it holds someone else's BCC entry, is added exactly as one that held none
// (decision 022): the caller's entry is laid over the hidden one, so the answer, the read-back, a
// later remove and the events are the same whether it was there or not. Everything is checked and
// written in one transaction, so an unknown user or an invisible message writes nothing. Each
// added recipient gets one `added` event batching every message newly shared with it (unless
// notify is false); a new CC entry is also `message.updated` news for those who see the message, a
// new BCC one only for its author.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/neo4j/database.js';
import { AppError, messageNotFound } from '../../platform/errors.js';
import { announceEvents, recordEvents, recordMessageChange, userEvents } from '../event-log/record-events.js';
import { parseRecipient } from '../messages/recipients.js';
import type { RecipientInput } from '../messages/messages.schemas.js';
import { mergeReceivers, resolveAddTargets } from './recipients-repository.js';
import type { AddRecipientsResponse, PropagationStrategy, RecipientChange } from './recipients.schemas.js';

export interface AddRecipientsInput {
  message_id?: string | undefined;
  message_ids?: string[] | undefined;
  recipients: RecipientInput[];
  propagation?: { strategy: PropagationStrategy } | undefined;
}

/** message_id and message_ids together, each once, in the order given; 400 when there is none. */
export function namedMessageIds(input: {
  message_id?: string | undefined;
  message_ids?: string[] | undefined;
}) {
  const ids = [...new Set([...(input.message_id ? [input.message_id] : []), ...(input.message_ids ?? [])])];
  if (ids.length === 0)
    throw new AppError('missing_field', 'The field message_id (or message_ids) is required.');
  return ids;
}

export async function addRecipients(
  ctx: AppContext,
  caller: Caller,
  input: AddRecipientsInput,
): Promise<AddRecipientsResponse> {
  assertScope(caller, 'messages.write');
  const messageIds = namedMessageIds(input);
  if (input.recipients.length === 0)
    throw new AppError('missing_field', 'The field recipients must name at least one user.');
  const refs = input.recipients.map(parseRecipient);

  const response = await ctx.db.inWrite(async (tx) => {
    const targets = await resolveAddTargets(tx, caller.uid, {
      message_ids: messageIds,
      strategy: input.propagation?.strategy ?? 'NONE',
      tags: unique(refs.filter((r) => r.kind === 'tag').map((r) => r.value)),
      uids: unique(refs.filter((r) => r.kind === 'uid').map((r) => r.value)),
    });
    if (targets.named.length !== messageIds.length) throw messageNotFound();

    // The first mention of a user decides its CC/BCC flag and whether it is notified.
    const wanted = new Map<string, { public: boolean; notify: boolean }>();
    for (const ref of refs) {
      const uid = targets.users.get(ref.key);
      if (!uid) throw new AppError('user_not_found', `No such user: ${ref.value}.`);
      if (!wanted.has(uid)) wanted.set(uid, { public: ref.public, notify: ref.notify });
    }

    const affected = unique([...messageIds, ...targets.propagated]);
    const pairs = affected.flatMap((message_id) =>
      [...wanted].map(([uid, options]) => ({ message_id, uid, public: options.public })),
    );
    const results = await mergeReceivers(tx, caller.uid, pairs);
    // A message deleted since the read above: fail the whole request rather than half-write it.
    if (results.length !== pairs.length) throw messageNotFound();

    const added: RecipientChange[] = [];
    const unchanged: RecipientChange[] = [];
    for (const { message_id, uid, added: isNew } of results)
      (isNew ? added : unchanged).push({ message_id, uid });
    const order = (change: RecipientChange) => affected.indexOf(change.message_id);
    added.sort((a, b) => order(a) - order(b));
    unchanged.sort((a, b) => order(a) - order(b));

    // The first mention of a user decides whether it is told; the adder is never told. An entry
    // laid over a hidden one is told like a new edge: the caller could not tell them apart.
    const entries = results.filter((r) => r.added);
    const told = entries.filter((change) => wanted.get(change.uid)?.notify !== false);
    await recordEvents(tx, caller.uid, userEvents('added', told, caller.uid));
    await recordRecipientChange(tx, caller.uid, entries);
    return { message_ids: affected, added, unchanged };
  });
  await announceEvents(ctx);
  return response;
}

/**
 * message.updated for a change of recipients, told only to those who may see the change: everyone
 * who sees the message for a CC entry, only the author for a BCC one (telling the others that
 * "recipients changed" while showing them nothing new would reveal it). Those whose own edge
 * changed are not told by it (they get `added`, or can no longer see the message, or, when a
 * removed entry uncovers a hidden one, are told nothing, as if they could not).
 */
export async function recordRecipientChange(
  tx: Tx,
  actorUid: string,
  changes: { message_id: string; uid: string; public: boolean }[],
): Promise<void> {
  const cc = unique(changes.filter((c) => c.public).map((c) => c.message_id));
  const bcc = unique(changes.filter((c) => !c.public).map((c) => c.message_id)).filter(
    (id) => !cc.includes(id),
  );
  const changedUids = unique(changes.map((c) => c.uid));
  await recordMessageChange(tx, actorUid, 'message.updated', cc, ['recipients'], { skipUids: changedUids });
  await recordMessageChange(tx, actorUid, 'message.updated', bcc, ['recipients'], {
    skipUids: changedUids,
    authorsOnly: true,
  });
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
