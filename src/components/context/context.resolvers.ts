// GraphQL conversation context: Query.messageContext (GET /v1/messages/{message_id}/context), calling
// the same use case as the REST route in context.rest.ts, with the same argument names and checks.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import { ContextQuery } from './context.schemas.js';
import { readMessageContext } from './read-context.js';

type Args = Record<string, unknown>;

export const contextResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    messageContext: (_: unknown, raw: Args, context: GraphQLContext) => {
      const { message_id, limit, max_chars } = raw;
      // Absent and null arguments take the REST defaults.
      const query = Object.fromEntries(
        Object.entries({ limit, max_chars }).filter(([, value]) => value !== null && value !== undefined),
      );
      return readMessageContext(
        context.app,
        callerOf(context),
        args(MessageIdParam, { message_id }).message_id,
        args(ContextQuery, query),
      );
    },
  },
};
