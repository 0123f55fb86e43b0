// GraphQL search fields, calling the same use cases as search.rest.ts:
//   Query.searchMessages    GET /v1/messages/search (anonymous callers see public messages only)
//   Query.similarMessages   GET /v1/messages/similar/{message_id}
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import { findSimilarMessages } from './find-similar-messages.js';
import { graphqlFieldSelection } from '../messages/message-selection.js';
import { searchMessages } from './search-messages.js';
import { SearchQuery, SimilarQuery } from './search.schemas.js';

type Args = Record<string, unknown>;

/** Absent and null arguments take the REST defaults. */
function present(raw: Args): Args {
  return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null && value !== undefined));
}

export const searchResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    searchMessages: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      searchMessages(context.app, context.caller, {
        ...args(SearchQuery, present(raw)),
        fields: graphqlFieldSelection(info, ['messages']),
      }),
    similarMessages: (_: unknown, raw: Args, context: GraphQLContext) => {
      const { message_id, ...query } = present(raw);
      return findSimilarMessages(
        context.app,
        callerOf(context),
        args(MessageIdParam, { message_id }).message_id,
        args(SimilarQuery, query),
      );
    },
  },
};
