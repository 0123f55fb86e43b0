// GraphQL fields of message edits; each calls the same use case as its REST route
// (message-edits.rest.ts) after validating its arguments with the same zod schemas:
//   Query    tags, bookmarks(skip, limit), messageEdits(message_id)
//   Mutation deleteMessage, deleteMessages, setMessagePublic, setMessagesPublic, setSubject,
//            editMessageContent, setTags, setTagsBatch, setReplyOrder, setDefaultOutgoing, markRead,
//            bookmark, unbookmark
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAccount } from '../../platform/graphql/resolver-helpers.js';
import { bookmarkMessage, listBookmarks, unbookmarkMessage } from './bookmarks.js';
import { deleteMessage, deleteMessagesBatch } from './delete-messages.js';
import { editMessageContent, listMessageEdits } from './edit-content.js';
import { listTags } from './list-tags.js';
import { markRead } from './mark-read.js';
import * as schemas from './message-edits.schemas.js';
import { MessageIdParam } from './messages.schemas.js';
import { setMessageDefaultOutgoing, setMessageReplyOrder } from './set-branching.js';
import { setMessagePublic, setMessagesPublic } from './set-public.js';
import { setMessageSubject } from './set-subject.js';
import { setMessageTags, setMessagesTags } from './set-tags.js';

type Args = Record<string, unknown>;

/** The message id argument (`message_id`), validated like the REST path parameter. */
function messageId(raw: Args): string {
  return args(MessageIdParam, { message_id: raw.message_id }).message_id;
}

/** GraphQL sends an explicit null for an omitted optional argument; zod defaults want undefined. */
function given(value: unknown): unknown {
  return value ?? undefined;
}

export const messageEditsResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    tags: (_: unknown, _raw: Args, context: GraphQLContext) => listTags(context.app, callerOf(context)),
    bookmarks: (_: unknown, raw: Args, context: GraphQLContext) =>
      listBookmarks(
        context.app,
        callerOf(context),
        args(schemas.BookmarksQuery, { skip: given(raw.skip), limit: given(raw.limit) }),
      ),
    messageEdits: (_: unknown, raw: Args, context: GraphQLContext) =>
      listMessageEdits(context.app, callerOf(context), messageId(raw)),
  },
  Mutation: {
    deleteMessage: (_: unknown, raw: Args, context: GraphQLContext) =>
      deleteMessage(
        context.app,
        callerOf(context),
        messageId(raw),
        args(schemas.DeleteOptions, { delete_descendants: given(raw.delete_descendants) }).delete_descendants,
      ),
    deleteMessages: (_: unknown, raw: Args, context: GraphQLContext) => {
      const input = args(schemas.BatchDeleteBody, {
        message_ids: raw.message_ids,
        delete_descendants: given(raw.delete_descendants),
      });
      return deleteMessagesBatch(context.app, callerOf(context), input.message_ids, input.delete_descendants);
    },
    setMessagePublic: (_: unknown, raw: Args, context: GraphQLContext) =>
      setMessagePublic(
        context.app,
        callerOf(context),
        messageId(raw),
        args(schemas.PublicBody, { public: raw.public }).public,
      ),
    setMessagesPublic: (_: unknown, raw: Args, context: GraphQLContext) => {
      const input = args(schemas.BatchPublicBody, { message_ids: raw.message_ids, public: raw.public });
      return setMessagesPublic(context.app, callerOf(context), input.message_ids, input.public);
    },
    setSubject: (_: unknown, raw: Args, context: GraphQLContext) =>
      setMessageSubject(
        context.app,
        callerOf(context),
        messageId(raw),
        args(schemas.SubjectBody, { subject: raw.subject }).subject,
      ),
    editMessageContent: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const caller = callerOf(context);
      // The REST route's budget (postsByAccount), spent before the arguments are read, as there.
      await limitAccount(context, (limits) => limits.postsByAccount);
      const id = messageId(raw);
      return editMessageContent(
        context.app,
        caller,
        id,
        args(schemas.ContentBody, { content: raw.content }).content,
      );
    },
    setTags: (_: unknown, raw: Args, context: GraphQLContext) =>
      setMessageTags(
        context.app,
        callerOf(context),
        messageId(raw),
        args(schemas.TagsBody, { tags: raw.tags }).tags,
      ),
    setTagsBatch: (_: unknown, raw: Args, context: GraphQLContext) => {
      const input = args(schemas.BatchTagsBody, { message_ids: raw.message_ids, tags: raw.tags });
      return setMessagesTags(context.app, callerOf(context), input.message_ids, input.tags);
    },
    setReplyOrder: (_: unknown, raw: Args, context: GraphQLContext) =>
      setMessageReplyOrder(
        context.app,
        callerOf(context),
        messageId(raw),
        args(schemas.ReplyOrderBody, { reply_order: raw.reply_order ?? null }).reply_order,
      ),
    setDefaultOutgoing: (_: unknown, raw: Args, context: GraphQLContext) =>
      setMessageDefaultOutgoing(
        context.app,
        callerOf(context),
        messageId(raw),
        args(schemas.DefaultOutgoingBody, { default_outgoing: raw.default_outgoing ?? null })
          .default_outgoing,
      ),
    markRead: (_: unknown, raw: Args, context: GraphQLContext) =>
      markRead(
        context.app,
        callerOf(context),
        messageId(raw),
        args(schemas.ReadBody, { read: given(raw.read) }).read,
      ),
    bookmark: (_: unknown, raw: Args, context: GraphQLContext) =>
      bookmarkMessage(context.app, callerOf(context), messageId(raw)),
    unbookmark: (_: unknown, raw: Args, context: GraphQLContext) =>
      unbookmarkMessage(context.app, callerOf(context), messageId(raw)),
  },
};
