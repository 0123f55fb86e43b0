// GraphQL read views: Query.timeline, inbox, history, publicMessages, threadMessages, conversation,
// traverse, treeIds, unreadCounts and Mutation.markThreadRead (each calls the same use case as its
// REST route in threads.rest.ts) and Message.thread (batched per request).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { spendAnswer } from '../../platform/graphql/answer-budget.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { loadVisible } from '../messages/message-loader.js';
import { graphqlFieldSelection, selectedNames, selectionNeedsLinks } from '../messages/message-selection.js';
import { MessageIdParam, type MessageOutput } from '../messages/messages.schemas.js';
import { UidParam } from '../users/users.schemas.js';
import { countUnread } from './count-unread.js';
import { listConversation } from './list-conversation.js';
import { listHistory } from './list-history.js';
import { listInbox } from './list-inbox.js';
import { listPublicMessages } from './list-public-messages.js';
import { listThreadMessages } from './list-thread-messages.js';
import { listTimeline } from './list-timeline.js';
import { markThreadRead } from './mark-thread-read.js';
import { readTreeIds } from './read-tree-ids.js';
import { threadLoader } from './thread-loader.js';
import {
  ConversationQuery,
  HistoryQuery,
  InboxQuery,
  PublicQuery,
  ThreadMessagesQuery,
  TimelineQuery,
  TraverseQuery,
  type TraversedMessage,
  UnreadQuery,
} from './threads.schemas.js';
import { traverseMessages } from './traverse-messages.js';

type Args = Record<string, unknown>;

/**
 * GraphQL arguments in the shape of a REST query string, so the same zod schemas validate both:
 * absent and null arguments take the defaults, booleans become 'true' / 'false'.
 */
function asQuery(raw: Args): Args {
  const query: Args = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === null || value === undefined) continue;
    query[name] = typeof value === 'boolean' ? String(value) : value;
  }
  return query;
}

/** The fields a paginated view answers: the Message selection under `messages` (GraphQL's fields=). */
const pageFields = (info: GraphQLResolveInfo) => graphqlFieldSelection(info, ['messages']);

export const threadsResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    timeline: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      listTimeline(context.app, callerOf(context), {
        ...args(TimelineQuery, asQuery(raw)),
        fields: pageFields(info),
      }),
    inbox: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      listInbox(context.app, callerOf(context), {
        ...args(InboxQuery, asQuery(raw)),
        fields: pageFields(info),
      }),
    history: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      listHistory(context.app, callerOf(context), {
        ...args(HistoryQuery, asQuery(raw)),
        fields: pageFields(info),
      }),
    publicMessages: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      listPublicMessages(context.app, context.caller, {
        ...args(PublicQuery, asQuery(raw)),
        fields: pageFields(info),
      }),
    threadMessages: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) => {
      const { message_id, ...query } = asQuery(raw);
      return listThreadMessages(
        context.app,
        callerOf(context),
        args(MessageIdParam, { message_id }).message_id,
        {
          ...args(ThreadMessagesQuery, query),
          fields: pageFields(info),
        },
      );
    },
    conversation: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) => {
      const { uid, ...query } = asQuery(raw);
      return listConversation(context.app, callerOf(context), args(UidParam, { uid }).uid, {
        ...args(ConversationQuery, query),
        fields: pageFields(info),
      });
    },
    traverse: (_: unknown, raw: Args, context: GraphQLContext, info: GraphQLResolveInfo) => {
      const { message_id, ...query } = asQuery(raw);
      const messageFields = graphqlFieldSelection(info, ['messages', 'message']);
      // TraversedMessage.replies is the use case's `replies` key: kept only when selected.
      const fields =
        messageFields && selectedNames(info, ['messages']).has('replies')
          ? new Set([...messageFields, 'replies'])
          : messageFields;
      return traverseMessages(
        context.app,
        callerOf(context),
        args(MessageIdParam, { message_id }).message_id,
        {
          ...args(TraverseQuery, query),
          fields,
        },
      );
    },
    treeIds: (_: unknown, raw: Args, context: GraphQLContext) =>
      readTreeIds(context.app, callerOf(context), args(MessageIdParam, raw).message_id),
    unreadCounts: (_: unknown, raw: Args, context: GraphQLContext) =>
      countUnread(context.app, callerOf(context), args(UnreadQuery, asQuery(raw))),
  },
  Mutation: {
    markThreadRead: (_: unknown, raw: Args, context: GraphQLContext) =>
      markThreadRead(context.app, callerOf(context), args(MessageIdParam, raw).message_id),
  },
  TraversedMessage: {
    // The REST shape is MessageOutput + depth (+ replies); GraphQL nests the Message instead.
    message: (traversed: TraversedMessage) => traversed,
  },
  Message: {
    thread: async (message: MessageOutput, _: Args, context: GraphQLContext, info: GraphQLResolveInfo) => {
      const thread = await threadLoader(context).load(message.id);
      if (!thread) return [];
      // Nested in another list, every item asks for the same thread: stop before building copies.
      spendAnswer(context, thread.ids.length);
      return loadVisible(context, thread.ids, selectionNeedsLinks(info));
    },
  },
};
