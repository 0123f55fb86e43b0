// Shapes of the message edit operations (deletion, public flag, subject, content and its edit
// history, tags, reply order, default outgoing, read state, bookmarks): validation and OpenAPI,
// shared by REST and GraphQL.
import { z } from '../../platform/openapi.js';
import {
  MessageContent,
  MessageId,
  NOT_BLANK_PATTERN,
  QueryBoolean,
  SUBJECT_MAX,
  TagList,
  pageQuery,
} from './messages.schemas.js';

export const MAX_BATCH_IDS = 100;
/** A reply_order longer than this cannot name distinct children of any sane message. */
export const MAX_REPLY_ORDER = 1000;

const BatchIds = z
  .array(MessageId)
  .min(1)
  .max(MAX_BATCH_IDS)
  .transform((ids) => [...new Set(ids)]);

export const DeleteQuery = z.object({
  delete_descendants: QueryBoolean.default(false).openapi({
    type: 'boolean',
    default: false,
    description: 'Delete the whole reply subtree too (all or nothing).',
  }),
});

/** The same option as a JSON or GraphQL boolean. */
export const DeleteOptions = z.object({ delete_descendants: z.boolean().default(false) });

export const BatchDeleteBody = z
  .object({ message_ids: BatchIds, delete_descendants: z.boolean().default(false) })
  .strict()
  .openapi('BatchDeleteRequest');
export type BatchDeleteBody = z.infer<typeof BatchDeleteBody>;

export const BatchItemError = z
  .object({ message_id: z.string(), status: z.number().int(), code: z.string(), detail: z.string() })
  .openapi('BatchItemError');
export type BatchItemError = z.infer<typeof BatchItemError>;

export const DeleteResponse = z.object({ deleted: z.array(z.string()) }).openapi('DeleteResponse');
export type DeleteResponse = z.infer<typeof DeleteResponse>;

export const BatchDeleteResponse = z
  .object({ deleted: z.array(z.string()), errors: z.array(BatchItemError) })
  .openapi('BatchDeleteResponse');
export type BatchDeleteResponse = z.infer<typeof BatchDeleteResponse>;

export const BatchUpdateResponse = z
  .object({ updated: z.array(z.string()), errors: z.array(BatchItemError) })
  .openapi('BatchUpdateResponse');
export type BatchUpdateResponse = z.infer<typeof BatchUpdateResponse>;

export const PublicBody = z.object({ public: z.boolean() }).strict().openapi('UpdatePublicRequest');
export const BatchPublicBody = z
  .object({ message_ids: BatchIds, public: z.boolean() })
  .strict()
  .openapi('BatchSetPublicRequest');

export const SubjectBody = z
  .object({
    subject: z
      .string()
      .trim()
      .max(SUBJECT_MAX)
      // The blank check is set-subject.ts's 400; the document states it.
      .openapi({ pattern: NOT_BLANK_PATTERN, description: 'Not blank (400 otherwise); trimmed.' }),
  })
  .strict()
  .openapi('UpdateSubjectRequest');

/** The same content rule as posting (MessageContent), so an edit can hold what a post can. */
export const ContentBody = z.object({ content: MessageContent }).strict().openapi('UpdateContentRequest');

/** How many replaced contents a message keeps; an edit beyond it drops the oldest. */
export const MAX_KEPT_VERSIONS = 50;

export const MessageEdit = z
  .object({
    content: z.string().openapi({ description: 'The content this edit replaced.' }),
    edited_at: z.string().openapi({ description: 'When the edit that replaced it was made.' }),
    edited_by: z
      .object({
        uid: z.string(),
        user_tag: z
          .string()
          .nullable()
          .openapi({ description: 'Null only when that account no longer exists.' }),
      })
      .openapi({
        description:
          'Who made the edit: the author, or one of its managers editing under its own name (acting as the ' +
          'author, or with a delegated token, the edit is the author’s).',
      }),
  })
  .openapi('MessageEdit');
export type MessageEdit = z.infer<typeof MessageEdit>;

export const MessageEdits = z
  .object({
    message_id: z.string(),
    edits: z.array(MessageEdit).openapi({
      description:
        `The contents the message held before, oldest first, at most the last ${MAX_KEPT_VERSIONS}; empty when ` +
        'never edited. The current content is the message’s own.',
    }),
  })
  .openapi('MessageEdits');
export type MessageEdits = z.infer<typeof MessageEdits>;

export const TagsBody = z.object({ tags: TagList }).strict().openapi('UpdateTagsRequest');
export const BatchTagsBody = z
  .object({ message_ids: BatchIds, tags: TagList })
  .strict()
  .openapi('BatchUpdateTagsRequest');

export const TagsResponse = z.array(z.string()).openapi('TagList');

export const ReplyOrderBody = z
  .object({ reply_order: z.array(z.string().max(64)).max(MAX_REPLY_ORDER).nullable() })
  .strict()
  .openapi('UpdateReplyOrderRequest');

export const DefaultOutgoingBody = z
  .object({ default_outgoing: z.string().max(64).nullable() })
  .strict()
  .openapi('UpdateDefaultOutgoingRequest');

export const ReadBody = z
  .object({ read: z.boolean().default(true) })
  .strict()
  .openapi('UpdateReadRequest');

export const ReadState = z
  .object({ message_id: z.string(), read: z.boolean(), read_at: z.string().nullable() })
  .openapi('ReadState');
export type ReadState = z.infer<typeof ReadState>;

export const BookmarkState = z
  .object({ message_id: z.string(), saved: z.boolean(), saved_at: z.string().nullable().optional() })
  .openapi('BookmarkState');
export type BookmarkState = z.infer<typeof BookmarkState>;

export const BookmarksQuery = z.object(pageQuery(15));
