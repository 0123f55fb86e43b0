// Subscription.notifications(since) — the caller's notifications over graphql-ws on /graphql (see
// realtime-graphql.ts for the socket, realtime-feed.ts for the replay-then-live order). The same
// feed as GET /v1/ws/v1; needs realtime.connect.
import type { IResolvers } from '@graphql-tools/utils';
import { z } from 'zod';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { decodeCursor } from '../event-log/event-log.js';
import type { DeliveredEvent } from './notification-event.js';
import { followNotifications } from './realtime-feed.js';

const NotificationsArgs = z.object({ since: z.string().max(32).nullish() });

export const realtimeResolvers: IResolvers<unknown, GraphQLContext> = {
  Subscription: {
    notifications: {
      subscribe: (_root: unknown, raw: unknown, context: GraphQLContext) => {
        const { since } = args(NotificationsArgs, raw);
        // A subscriber that reads slowly is not cut off: the feed re-reads from the log what it
        // could not hold (realtime-graphql.ts bounds what the socket itself may hold).
        const after = since == null ? null : decodeCursor(since, ['args', 'since']);
        return followNotifications(context.app, callerOf(context), { since: after, address: context.ip });
      },
      resolve: (delivered: DeliveredEvent) => delivered,
    },
  },
};
