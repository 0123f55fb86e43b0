// GraphQL fields of live delivery; each calls the same use case as its REST route (live.rest.ts):
//   Mutation setTyping(message_id, channel_id, recipients, op, status)
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAccount, withoutNulls } from '../../platform/graphql/resolver-helpers.js';
import { TypingInput } from './live.schemas.js';
import { setTyping } from './set-typing.js';

export const liveResolvers: IResolvers<unknown, GraphQLContext> = {
  Mutation: {
    setTyping: async (_: unknown, raw: Record<string, unknown>, context: GraphQLContext) => {
      const caller = callerOf(context);
      await limitAccount(context, (limits) => limits.typingByAccount);
      return setTyping(context.app, caller, args(TypingInput, withoutNulls(raw)), 'args');
    },
  },
};
