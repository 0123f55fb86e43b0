// GraphQL fields of admin metrics: Query.messagesPerDay (GET /v1/admin/metrics/messages-per-day),
// calling the same use case as the REST route in metrics.rest.ts.
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { MessagesPerDayQuery } from './metrics.schemas.js';
import { readMessagesPerDay } from './read-message-metrics.js';

type Args = Record<string, unknown>;

export const metricsResolvers = {
  Query: {
    messagesPerDay: (_: unknown, raw: Args, context: GraphQLContext) =>
      readMessagesPerDay(
        context.app,
        callerOf(context),
        // Absent and null arguments alike mean "not given", as a missing query parameter does.
        args(MessagesPerDayQuery, Object.fromEntries(Object.entries(raw).filter(([, v]) => v != null))),
      ),
  },
};
