// GraphQL fields of events, each calling the same use case as its REST route (events.rest.ts):
//   Query.notifications       GET  /v1/notifications
//   Mutation.pingMessage      POST /v1/messages/{message_id}/ping
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAccount, withoutNulls } from '../../platform/graphql/resolver-helpers.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import { NotificationsQuery, PingRequest } from './events.schemas.js';
import { pingMessage } from './ping-message.js';
import { readNotifications } from './read-notifications.js';

type Args = Record<string, unknown>;

export const eventsResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    notifications: (_: unknown, raw: Args, context: GraphQLContext) =>
      readNotifications(
        context.app,
        callerOf(context),
        args(NotificationsQuery, { since: raw.since ?? undefined, limit: raw.limit ?? undefined }),
      ),
  },
  Mutation: {
    pingMessage: async (_: unknown, raw: Args, context: GraphQLContext) => {
      await limitAccount(context, (limits) => limits.pingsByAccount);
      const { message_id } = args(MessageIdParam, { message_id: raw.message_id });
      return pingMessage(
        context.app,
        callerOf(context),
        message_id,
        args(PingRequest, { recipients: withoutNulls(raw.recipients) }),
      );
    },
  },
};
