// /v1 reaction routes:
//   PUT    /v1/messages/:message_id/reactions/:reaction   add your reaction (idempotent)
//   DELETE /v1/messages/:message_id/reactions/:reaction   remove it (idempotent)
//   GET    /v1/messages/:message_id/reactions             who reacted, per reaction, paged
// All three answer 404 for a message the caller cannot see, as for a missing one. The reaction
// arrives percent-encoded; Express decodes it and the Reaction schema checks and spells it.
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import { listReactions } from './list-reactions.js';
import { addReaction, removeReaction } from './react-to-message.js';
import { MAX_DISTINCT_REACTIONS, MAX_OWN_REACTIONS, REACTION_RULE } from './reaction-rules.js';
import * as schemas from './reactions.schemas.js';

const TAG = 'reactions';
const NOT_FOUND = 'Not found, or not visible to you (the same answer).';
const INVALID = `The reaction is not ${REACTION_RULE}, or the message id is malformed.`;
const SHOWN =
  'Counts and lists hold the reactors you are shown: one who can no longer see the message is left out, and ' +
  'a BCC recipient is shown only to the author, the adder of that BCC entry and themselves.';

export function mountReactionRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'put',
    path: '/v1/messages/:message_id/reactions/:reaction',
    tag: TAG,
    summary: 'React to a message',
    description:
      `Adds your reaction, ${REACTION_RULE}, to a message you can see. Idempotent: reacting again with the ` +
      `same emoji changes nothing. A message holds at most ${MAX_DISTINCT_REACTIONS} different reactions ` +
      `(those you are shown) and at most ${MAX_OWN_REACTIONS} of yours. The message's audience (author, ` +
      'recipients, channel members) hears `message.updated` with the change `reactions` on sockets and ' +
      `subscriptions. Answers the message's reactions as you now see them. ${SHOWN} Needs \`messages.write\`.`,
    auth: 'required',
    accountLimit: (limits) => limits.reactionsByAccount,
    params: schemas.ReactionParams,
    response: schemas.ReactionState,
    errors: {
      403: 'messages.write missing.',
      404: NOT_FOUND,
      409:
        `\`too_many_reactions\`: ${MAX_DISTINCT_REACTIONS} different reactions already; ` +
        `\`too_many_own_reactions\`: ${MAX_OWN_REACTIONS} of yours already.`,
      422: INVALID,
    },
    handler: ({ caller, params }) => addReaction(ctx, caller, params.message_id, params.reaction),
  });

  routes.add({
    method: 'delete',
    path: '/v1/messages/:message_id/reactions/:reaction',
    tag: TAG,
    summary: 'Remove your reaction',
    description:
      'Removes your reaction from a message you can see; answers `me: false` also when you had not reacted with ' +
      'it (only a removal tells the audience, with `message.updated`). Needs `messages.write`.',
    auth: 'required',
    accountLimit: (limits) => limits.reactionsByAccount,
    params: schemas.ReactionParams,
    response: schemas.ReactionState,
    errors: { 403: 'messages.write missing.', 404: NOT_FOUND, 422: INVALID },
    handler: ({ caller, params }) => removeReaction(ctx, caller, params.message_id, params.reaction),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/:message_id/reactions',
    tag: TAG,
    summary: 'List who reacted',
    description:
      'For each reaction on a message you can see (or only `reaction`), most used first: its count, whether you ' +
      'reacted, and one page of who reacted (`skip`, `limit` default 20, per reaction), earliest first, as the ' +
      `public user shape. ${SHOWN} Needs \`messages.read\`.`,
    auth: 'required',
    params: MessageIdParam,
    query: schemas.ReactionsQuery,
    response: schemas.ReactionList,
    errors: { 403: 'messages.read missing.', 404: NOT_FOUND, 422: INVALID },
    handler: ({ caller, params, query }) => listReactions(ctx, caller, params.message_id, query),
  });
}
