// GET /v1/messages/{message_id}/reactions: who reacted to a message, per reaction, only for a caller
// who can see it (404 otherwise). Each reactor is judged as the message's counts judge it
// (cypher/fragments/reaction-shown.cypher), so the list and MessageOutput.reactions always agree.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { byUseThenFirstUse } from '../messages/message-output.js';
import { toUserOutput } from '../users/user-record.js';
import { listReactors } from './reactions-repository.js';
import type { ReactionList, ReactionsQuery } from './reactions.schemas.js';

export async function listReactions(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  query: ReactionsQuery,
): Promise<ReactionList> {
  assertScope(caller, 'messages.read');
  const reactions = await listReactors(ctx.db, caller.uid, messageId, {
    reaction: query.reaction ?? null,
    skip: query.skip,
    limit: query.limit,
  });
  if (!reactions) throw messageNotFound();
  return {
    message_id: messageId,
    reactions: reactions.sort(byUseThenFirstUse).map(({ reaction, count, me, users }) => ({
      reaction,
      count,
      me,
      users: users.slice(0, query.limit).map(({ user, viewer }) => toUserOutput(user, viewer)),
      has_more: users.length > query.limit,
    })),
    skip: query.skip,
    limit: query.limit,
  };
}
