// POST /v1/messages/{message_id}/read: sets or clears read_at on the caller's receivers edge of a
// message it can see. Read state lives on that edge, so a message the caller merely sees (its own,
// a public one, a channel's) has none: the answer is then read false and nothing is stored.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { setReadState } from './message-edits-repository.js';
import type { ReadState } from './message-edits.schemas.js';

export async function markRead(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  read: boolean,
): Promise<ReadState> {
  assertScope(caller, 'messages.write');
  const state = await setReadState(ctx.db, caller.uid, messageId, read);
  if (!state) throw messageNotFound();
  return { message_id: messageId, read: state.read_at !== null, read_at: state.read_at };
}
