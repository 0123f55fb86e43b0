// POST /v1/messages/{message_id}/ping: tells named users about a message they can already see,
// without changing who can see it or any edge. The pinger must see the message (404 otherwise, as
// for a missing one); named users who cannot see it are skipped without saying so.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, messageNotFound } from '../../platform/errors.js';
import { announceEvents, recordEvents, userEvents } from '../event-log/record-events.js';
import { parseRecipient } from '../messages/recipients.js';
import type { PingRequest, PingResponse } from './events.schemas.js';
import { findUsersWhoSee, resolvePingRefs } from './events-repository.js';

export async function pingMessage(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  input: PingRequest,
): Promise<PingResponse> {
  assertScope(caller, 'messages.write');
  if (input.recipients.length === 0)
    throw new AppError('missing_field', 'The field recipients must name at least one user.');
  const refs = input.recipients.map(parseRecipient);
  const response = await ctx.db.inWrite(async (tx) => {
    const found = await resolvePingRefs(tx, caller.uid, {
      message_id: messageId,
      tags: [...new Set(refs.filter((r) => r.kind === 'tag').map((r) => r.value))],
      uids: [...new Set(refs.filter((r) => r.kind === 'uid').map((r) => r.value))],
    });
    if (!found.visible) throw messageNotFound();
    const named: string[] = [];
    for (const ref of refs) {
      const uid = found.users.get(ref.key);
      if (!uid) throw new AppError('user_not_found', `No such user: ${ref.value}.`);
      if (!named.includes(uid)) named.push(uid);
    }
    const seeing = await findUsersWhoSee(tx, messageId, named);
    const pairs = seeing.map((uid) => ({ uid, message_id: messageId }));
    await recordEvents(tx, caller.uid, userEvents('ping', pairs, caller.uid));
    return { message_id: messageId, pinged: named };
  });
  await announceEvents(ctx);
  return response;
}
