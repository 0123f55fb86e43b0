// GraphQL fields of messages; each operation calls the same use case as its REST route
// (messages.rest.ts), and Message's graph fields load through the per-request DataLoaders.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLResolveInfo } from 'graphql';
import { JSONObjectResolver } from 'graphql-scalars';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { consumeAccountLimit } from '../../platform/rate-limits.js';
import { userLoader } from '../users/user-loader.js';
import { loadVisible, messageLoader } from './message-loader.js';
import { selectionNeedsLinks } from './message-selection.js';
import { idempotencyKeyOf } from './messages.rest.js';
import { MessageIdParam, type MessageOutput } from './messages.schemas.js';
import { postedMessageCount, postMessages, type PostKind } from './post-messages.js';
import { readMessage } from './read-message.js';

type Args = Record<string, unknown>;

async function post(raw: Args, context: GraphQLContext, kind: PostKind) {
  const items = raw.messages as unknown[];
  const caller = callerOf(context);
  // The REST routes' budget, a point per message as there (messages.rest.ts).
  await consumeAccountLimit(context.app.limits.postsByAccount, caller, postedMessageCount(items));
  const key = raw.idempotency_key as string | undefined | null;
  return postMessages(
    context.app,
    caller,
    items,
    idempotencyKeyOf(() => key ?? undefined),
    kind,
    'args',
  );
}

export const messagesResolvers: IResolvers<unknown, GraphQLContext> = {
  JSONObject: JSONObjectResolver,
  Query: {
    message: (_: unknown, raw: Args, context: GraphQLContext) =>
      readMessage(
        context.app,
        callerOf(context),
        args(MessageIdParam, { message_id: raw.message_id }).message_id,
      ),
  },
  Mutation: {
    postMessages: (_: unknown, raw: Args, context: GraphQLContext) => post(raw, context, 'post'),
    importMessages: (_: unknown, raw: Args, context: GraphQLContext) => post(raw, context, 'import'),
  },
  Message: {
    author: (message: MessageOutput, _: Args, context: GraphQLContext) =>
      userLoader(context).load(message.author.uid),
    // Each loads its messages without links when the query selects none of theirs.
    parent: (message: MessageOutput, _: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      message.parent_id ? messageLoader(context, selectionNeedsLinks(info)).load(message.parent_id) : null,
    replies: (message: MessageOutput, _: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      loadVisible(context, message.reply_ids, selectionNeedsLinks(info)),
    stitchParents: (message: MessageOutput, _: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      loadVisible(context, message.stitch_parent_ids, selectionNeedsLinks(info)),
    stitchChildren: (message: MessageOutput, _: Args, context: GraphQLContext, info: GraphQLResolveInfo) =>
      loadVisible(context, message.stitch_child_ids, selectionNeedsLinks(info)),
  },
  Recipient: {
    user: (recipient: { uid: string }, _: Args, context: GraphQLContext) =>
      userLoader(context).load(recipient.uid),
  },
};
