// Shapes of message input and output (validation and OpenAPI).
import { eachRequired, z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';

export const MessageId = z.string().regex(/^[0-9a-f]{8}$/, 'must be 8 lowercase hex characters');
export const MessageIdParam = z.object({ message_id: MessageId });

export const MAX_CONTENT_CHARS = 65_536;
export const MAX_ITEMS_PER_POST = 100;
export const MAX_RECIPIENTS = 100;
export const MAX_TAGS = 32;
export const SUBJECT_MAX = 72;
/**
 * A subject is trimmed and must keep a character: in the document, "holds a non-whitespace
 * character" (JSON Schema patterns are not anchored; \s and String.prototype.trim agree on whitespace).
 */
export const NOT_BLANK_PATTERN = '\\S';

/** Tags: 1–64 of [A-Za-z0-9_.:/-], stored lower-case. */
export const Tag = z
  .string()
  .regex(/^[A-Za-z0-9_.:/-]{1,64}$/, 'tags are 1–64 of A-Z a-z 0-9 _ . : / -')
  .transform((tag) => tag.toLowerCase());
export const TagList = z
  .array(Tag)
  .max(MAX_TAGS)
  .transform((tags) => [...new Set(tags)]);

const RecipientObject = z
  .object({
    user_tag: z.string().min(1).max(64).optional(),
    uid: z.string().min(1).max(64).optional(),
    public: z
      .boolean()
      .default(true)
      .openapi({ description: 'true = CC (listed to all viewers), false = BCC.' }),
    notify: z.boolean().default(true).openapi({ description: 'Input only: whether a notification is sent.' }),
  })
  .strict()
  .refine((r) => (r.user_tag === undefined) !== (r.uid === undefined), 'give exactly one of user_tag or uid')
  // The refine is invisible to the document; this states it.
  .openapi({ oneOf: eachRequired('user_tag', 'uid') });

export const RecipientInput = z
  .union([z.string().min(1).max(70), RecipientObject])
  .openapi('RecipientInput', {
    description:
      'A user tag, `@tag`, `uid:<uid>`, or an object {user_tag | uid, public = true, notify = true}.',
  });
export type RecipientInput = z.infer<typeof RecipientInput>;

export const RecipientList = z.array(RecipientInput).max(MAX_RECIPIENTS);

export const FileRef = z
  .object({ file_id: MessageId })
  .loose()
  .openapi('FileRef', { description: 'File metadata from POST /v1/files/upload; only `file_id` is read.' });

/** A message's content, posted or edited: one rule for both (PATCH /v1/messages/{message_id}/content). */
export const MessageContent = z.string().min(1).max(MAX_CONTENT_CHARS);

// One shape for both inputs, so the import input is its own flat schema in OpenAPI: extending a
// registered strict schema would give allOf with two additionalProperties: false, which nothing passes.
export const MESSAGE_INPUT_SHAPE = {
  content: MessageContent,
  parent_id: MessageId.nullable().optional(),
  recipients: RecipientList.default([]),
  public: z.boolean().default(false),
  tags: TagList.default([]),
  files: z.array(FileRef).max(20).default([]),
  subject: z
    .string()
    .trim()
    .min(1)
    .max(SUBJECT_MAX)
    .nullable()
    .optional()
    .openapi({ pattern: NOT_BLANK_PATTERN, description: 'Not blank; trimmed.' }),
  channel_ids: z.array(MessageId).max(20).default([]),
  audience: z
    .enum(['parent'])
    .nullish()
    .openapi({
      description:
        '"parent": a reply also goes to the parent\'s author and CC recipients (never its BCC ones) and into the ' +
        "parent's channels that you belong to, as a reply in a chat does. Without it a reply reaches exactly the " +
        "recipients and channels it names (the spec's per-message visibility). Ignored without a parent.",
    }),
};

export const MessageInput = z
  .object(MESSAGE_INPUT_SHAPE)
  .strict()
  .openapi('MessageInput', {
    description:
      'A new message. An `@user_tag` in `content` pings that user when the message is posted, if they can ' +
      'already see it (a mention never grants visibility, and the answer does not say who was told).',
  });
export type MessageInput = z.infer<typeof MessageInput>;

/** How a streamed reply ended, kept on the message it posted (decision 031). */
export const MessageStream = z
  .object({
    id: z.string().openapi({ description: 'The stream that wrote it.' }),
    ended: z.enum(['finished', 'stopped', 'incomplete']),
    stopped_by: z
      .object({ uid: z.string(), user_tag: z.string() })
      .nullable()
      .openapi({ description: 'Who asked to stop it; null when not stopped, or when a BCC recipient did.' }),
  })
  .openapi('MessageStream');

/** External attribution of an imported (quoted) message; shown on output as `import_info`. */
export const ImportInfo = z
  .object({
    source: z.string().trim().min(1).max(100).openapi({ example: 'slack' }),
    author_name: z.string().trim().min(1).max(200),
    author_id: z.string().trim().min(1).max(200).optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    original_timestamp: z.iso
      .datetime({ offset: true })
      .transform((value) => new Date(value).toISOString())
      .optional(),
  })
  .strict()
  .openapi('ImportInfo');

export const ImportedMessageInput = z
  .object({ ...MESSAGE_INPUT_SHAPE, import_info: ImportInfo })
  .strict()
  .openapi('ImportedMessageInput');
export type ImportedMessageInput = z.infer<typeof ImportedMessageInput>;

/** POST /v1/messages body: one input, {messages: [...]}, or a raw array. Items are validated one by one. */
export const MessagesPostBody = z
  .union([
    z.array(z.unknown()).min(1).max(MAX_ITEMS_PER_POST),
    z.object({ messages: z.array(z.unknown()).min(1).max(MAX_ITEMS_PER_POST) }).strict(),
    z.object({ content: z.unknown() }).loose(),
  ])
  .openapi({
    description:
      `One MessageInput, an object {messages: [MessageInput]}, or an array of MessageInput (at most ${MAX_ITEMS_PER_POST}). ` +
      'In a multi-message input each message after the first is a reply to the previous successful one.',
  });

/** How OpenAPI shows the POST /v1/messages body: the three forms with the item type spelled out. */
export const MessagesPostBodyDocumented = z
  .union([
    MessageInput,
    z.object({ messages: z.array(MessageInput).min(1).max(MAX_ITEMS_PER_POST) }).strict(),
    z.array(MessageInput).min(1).max(MAX_ITEMS_PER_POST),
  ])
  .openapi('MessagesPostBody', {
    description:
      `One MessageInput, an object {messages: [MessageInput]}, or an array of MessageInput (at most ${MAX_ITEMS_PER_POST}). ` +
      'Each item is validated on its own: an invalid item fails alone (422 in its result).',
  });

/** The POST /v1/messages/import/quote body: the same three forms of ImportedMessageInput. */
export const ImportPostBodyDocumented = z
  .union([
    ImportedMessageInput,
    z.object({ messages: z.array(ImportedMessageInput).min(1).max(MAX_ITEMS_PER_POST) }).strict(),
    z.array(ImportedMessageInput).min(1).max(MAX_ITEMS_PER_POST),
  ])
  .openapi('ImportPostBody', {
    description: 'One ImportedMessageInput, {messages: [ImportedMessageInput]}, or an array of them.',
  });

/** The Idempotency-Key header of the message-creating routes (read by idempotencyKeyOf). */
export const IdempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/)
    .optional()
    .openapi({
      description:
        'The same key from the same caller within 24 hours answers the first answer again and creates nothing.',
      example: 'lunch-2026-11-24-1',
    }),
});

export const Author = z.object({ uid: z.string(), user_tag: z.string() }).openapi('Author');

export const RecipientOutput = z
  .object({
    uid: z.string(),
    user_tag: z.string(),
    public: z.boolean(),
    added_by: z.string().nullable(),
    read_at: z.string().nullable(),
  })
  .openapi('Recipient');

export const Attachment = z
  .object({
    file_id: z.string(),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    url: z.string(),
  })
  .openapi('FileMetadata');

/** One reaction on a message as the viewer is shown it (cypher/fragments/reaction-shown.cypher). */
export const ReactionCount = z
  .object({
    reaction: z.string().openapi({ example: '👍' }),
    count: z.number().int().openapi({ description: 'Reactors of it that you are shown.' }),
    me: z.boolean().openapi({ description: 'Whether you reacted with it.' }),
  })
  .openapi('ReactionCount');
export type ReactionCount = z.infer<typeof ReactionCount>;

export const MessageOutput = z
  .object({
    id: z.string(),
    content: z.string(),
    subject: z.string().nullable(),
    public: z.boolean(),
    timestamp: z.string(),
    edited_at: z.string().nullable().openapi({
      description:
        'When the content was last edited (PATCH /v1/messages/{message_id}/content); null when never edited.',
    }),
    author: Author,
    parent_id: z
      .string()
      .nullable()
      .openapi({ description: 'Null for a root, or when the parent is not visible.' }),
    root_id: z.string().openapi({
      description:
        'The thread root as you see it: the message’s own id when you see it as a root (it has no ' +
        'parent, or one you may not see), else the thread root, or, when you may not see that, the topmost ' +
        'ancestor you reach through parents you may see.',
    }),
    recipients: z.array(RecipientOutput).openapi({
      description: 'CC entries for everyone; a BCC entry only for the author, its adder and that recipient.',
    }),
    tags: z.array(z.string()),
    attachments: z.array(Attachment),
    reply_order: z.array(z.string()).nullable(),
    default_outgoing: z.string().nullable(),
    reply_ids: z.array(z.string()),
    stitch_parent_ids: z.array(z.string()),
    stitch_child_ids: z.array(z.string()),
    channel_ids: z
      .array(z.string())
      .openapi({ description: 'Channels holding it that the viewer belongs to.' }),
    import_info: z.record(z.string(), z.unknown()).nullable(),
    stream: MessageStream.nullable().openapi({
      description:
        'Set when the message was a streamed reply (POST /v1/streams): how it ended, and who stopped it.',
    }),
    is_saved: z.boolean(),
    reactions: z.array(ReactionCount).openapi({
      description:
        'Emoji reactions, most used first, then the one used first. A reactor who can no longer see the ' +
        'message is not counted, and a BCC recipient only where that BCC entry is shown.',
    }),
  })
  .openapi('MessageOutput', { description: 'Every id in it is one the viewer may see.' });
export type MessageOutput = z.infer<typeof MessageOutput>;

export const ItemError = z.object({ status: z.number().int(), code: z.string(), detail: z.string() });
export type ItemError = z.infer<typeof ItemError>;

export const MessageCreateResult = z
  .union([
    z.object({ index: z.number().int(), ok: z.literal(true), message: MessageOutput }),
    z.object({ index: z.number().int(), ok: z.literal(false), error: ItemError }),
  ])
  .openapi('MessageCreateResult');
export type MessageCreateResult = z.infer<typeof MessageCreateResult>;

export const MessageCreateResults = z.array(MessageCreateResult);

/**
 * A message as a list view answers it with `fields=` (message-fields.ts): `id` and the asked fields
 * only, each as in MessageOutput. Without `fields=` every message is a whole MessageOutput.
 */
export const SparseMessageOutput = MessageOutput.partial()
  .required({ id: true })
  .openapi('SparseMessageOutput', {
    description:
      'A message answered with `fields=`: `id` and the asked fields only, each as in MessageOutput (every id ' +
      'in it is one the viewer may see).',
  });

export const PaginatedMessages = z
  .object({
    messages: z.array(z.union([MessageOutput, SparseMessageOutput])).openapi({
      description:
        'Whole messages (MessageOutput); on a view called with `fields=`, each holds `id` and the asked ' +
        'fields only (SparseMessageOutput).',
    }),
    skip: z.number().int(),
    limit: z.number().int(),
    has_more: z.boolean(),
  })
  .openapi('PaginatedMessagesResponse');
export type PaginatedMessages = z.infer<typeof PaginatedMessages>;

/** skip ≥ 0 and 1 ≤ limit ≤ 100; out of range is 422. */
export function pageQuery(defaultLimit: number) {
  return {
    skip: queryInteger({ min: 0, max: 100_000 }).default(0),
    limit: queryInteger({ min: 1, max: 100 }).default(defaultLimit),
  };
}

/**
 * A boolean query flag. Uses say `.openapi({ type: 'boolean', default })` so the document shows a
 * boolean (clients send true/false) rather than the string enum with a boolean default.
 */
export const QueryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');
