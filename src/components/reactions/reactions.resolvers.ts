// GraphQL fields of reactions; each calls the same use case as its REST route (reactions.rest.ts)
// after validating its arguments with the same zod schemas:
//   Query    reactions(message_id, reaction, skip, limit)
//   Mutation react(message_id, reaction), unreact(message_id, reaction)
// Message.reactions is a key of the hydrated message (messages.resolvers.ts loads it as a link field).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAccount } from '../../platform/graphql/resolver-helpers.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import { listReactions } from './list-reactions.js';
import { addReaction, removeReaction } from './react-to-message.js';
import { ReactionParams, ReactionsQuery } from './reactions.schemas.js';

type Args = Record<string, unknown>;

/** GraphQL sends an explicit null for an omitted optional argument; zod defaults want undefined. */
const given = (value: unknown): unknown => value ?? undefined;

async function change(raw: Args, context: GraphQLContext, run: typeof addReaction) {
  const caller = callerOf(context);
  await limitAccount(context, (limits) => limits.reactionsByAccount);
  const input = args(ReactionParams, { message_id: raw.message_id, reaction: raw.reaction });
  return run(context.app, caller, input.message_id, input.reaction);
}

export const reactionsResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    reactions: (_: unknown, raw: Args, context: GraphQLContext) =>
      listReactions(
        context.app,
        callerOf(context),
        args(MessageIdParam, { message_id: raw.message_id }).message_id,
        args(ReactionsQuery, {
          reaction: given(raw.reaction),
          skip: given(raw.skip),
          limit: given(raw.limit),
        }),
      ),
  },
  Mutation: {
    react: (_: unknown, raw: Args, context: GraphQLContext) => change(raw, context, addReaction),
    unreact: (_: unknown, raw: Args, context: GraphQLContext) => change(raw, context, removeReaction),
  },
};
