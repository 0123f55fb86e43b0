// Subscription.notifications(since, include_context) — the caller's notifications over graphql-ws on
// /graphql (see realtime-graphql.ts for the socket, realtime-feed.ts for the replay-then-live order).
// The same feed as GET /v1/ws/v1; needs realtime.connect. With include_context, each new message
// carries message_context, as /v1/ws/v1?include_context=true gives it (message-contexts.ts).
import type { IResolvers } from '@graphql-tools/utils';
import { z } from 'zod';
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { decodeCursor } from '../event-log/event-log.js';
import { withinBudget } from './event-budget.js';
import { withMessageContexts } from './message-contexts.js';
import type { DeliveredEvent } from './notification-event.js';
import { followNotifications, type NotificationFeed } from './realtime-feed.js';

const NotificationsArgs = z.object({
  since: z.string().max(32).nullish(),
  include_context: z.boolean().nullish(),
});

export const realtimeResolvers: IResolvers<unknown, GraphQLContext> = {
  Subscription: {
    notifications: {
      subscribe: async (_root: unknown, raw: unknown, context: GraphQLContext) => {
        const { since, include_context } = args(NotificationsArgs, raw);
        // A subscriber that reads slowly is not cut off: the feed re-reads from the log what it
        // could not hold (realtime-graphql.ts bounds what the socket itself may hold).
        const after = since == null ? null : decodeCursor(since, ['args', 'since']);
        const caller = callerOf(context);
        const feed = await followNotifications(context.app, caller, { since: after, address: context.ip });
        return include_context === true ? withContexts(context.app, caller, feed) : feed;
      },
      resolve: (delivered: DeliveredEvent, _args: unknown, context: GraphQLContext) => ({
        ...delivered,
        event: withinBudget(delivered.event, context.app.config.realtime.eventMaxBytes),
      }),
    },
  },
};

/**
 * The feed's events with their messages' contexts, one at a time and in order; an event whose every
 * message became invisible while its contexts were read is passed over, as the feed passes over
 * any event that shows nothing. Ending the subscription closes the feed at once, even while it
 * waits for the next event (which an async generator could not do).
 */
function withContexts(
  ctx: AppContext,
  caller: Caller,
  feed: NotificationFeed,
): AsyncIterableIterator<DeliveredEvent> {
  const iterator: AsyncIterableIterator<DeliveredEvent> = {
    next: async () => {
      for (;;) {
        const delivered = await feed.next();
        if (delivered === null) return { done: true, value: undefined };
        const event = await withMessageContexts(ctx, caller, delivered.event, delivered.id);
        if (event) return { done: false, value: { ...delivered, event } };
      }
    },
    return: () => {
      feed.close();
      return Promise.resolve({ done: true, value: undefined });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
