// Shapes of the live operations (decision 031): validation and OpenAPI, shared by REST and GraphQL.
import { z } from '../../platform/openapi.js';
import {
  MESSAGE_INPUT_SHAPE,
  MessageId,
  MessageOutput,
  RecipientInput,
} from '../messages/messages.schemas.js';
import { TYPING_EXPIRES_MS, TYPING_RENEW_MS } from './typing-board.js';

/** Users a conversation target names besides the typist, at most. */
export const MAX_TYPING_RECIPIENTS = 50;
export const MAX_STATUS_CHARS = 64;

export const TypingInput = z
  .object({
    message_id: MessageId.optional().openapi({ description: 'Typing a reply to this message.' }),
    channel_id: MessageId.optional().openapi({ description: 'Typing in this channel (you are a member).' }),
    recipients: z
      .array(RecipientInput)
      .min(1)
      .max(MAX_TYPING_RECIPIENTS)
      .optional()
      .openapi({ description: 'Typing a new message to these users (a conversation).' }),
    op: z.enum(['start', 'stop']).default('start'),
    status: z
      .string()
      .trim()
      .min(1)
      .max(MAX_STATUS_CHARS)
      .regex(/^[^\r\n]*$/, 'must be one line')
      .nullish()
      .openapi({
        description: `What you are doing, such as "searching the docs…" (1–${MAX_STATUS_CHARS} characters).`,
      }),
  })
  .strict()
  .refine(
    (input) =>
      [input.message_id, input.channel_id, input.recipients].filter((target) => target !== undefined)
        .length === 1,
    'give exactly one of message_id, channel_id or recipients',
  )
  .openapi('TypingInput');
export type TypingInput = z.infer<typeof TypingInput>;

export const TypingResult = z
  .object({
    op: z.enum(['start', 'stop']),
    expires_at: z
      .string()
      .nullable()
      .openapi({
        description: `When the signal ends unless renewed (${TYPING_EXPIRES_MS / 1000} s after the last renewal); null after a stop.`,
      }),
    renew_in_ms: z
      .number()
      .int()
      .openapi({
        description: `Renew (send the same start again) within this many milliseconds to keep showing (${TYPING_RENEW_MS}).`,
      }),
  })
  .openapi('TypingResult');
export type TypingResult = z.infer<typeof TypingResult>;

export const StreamIdParam = z.object({
  stream_id: z.string().regex(/^[0-9a-f]{8}$/, 'must be 8 lowercase hex characters'),
});

/** Characters one chunk may carry; the whole text is at most a message's content (MAX_CONTENT_CHARS). */
export const MAX_CHUNK_CHARS = 16_384;

export const StreamInput = z
  .object({
    ...MESSAGE_INPUT_SHAPE,
    content: z
      .string()
      .max(MAX_CHUNK_CHARS)
      .default('')
      .openapi({ description: 'The first chunk, if any (empty: the stream opens with nothing written).' }),
  })
  .strict()
  .openapi('StreamInput', {
    description:
      'A reply to stream: the fields of MessageInput, judged as a post judges them (the same errors), with the ' +
      'content written later in chunks.',
  });
export type StreamInput = z.infer<typeof StreamInput>;

export const ChunkInput = z
  .object({
    seq: z.number().int().min(1).openapi({
      description:
        "This chunk's number: 1, 2, 3… (the last one again with the same text is a harmless retry).",
    }),
    text: z.string().min(1).max(MAX_CHUNK_CHARS),
  })
  .strict()
  .openapi('StreamChunkInput');
export type ChunkInput = z.infer<typeof ChunkInput>;

export const FinishInput = z
  .object({
    last_seq: z.number().int().min(0).openapi({
      description: 'The seq of your last chunk (0 when none): the text posted is exactly chunks 1..last_seq.',
    }),
    incomplete: z
      .boolean()
      .default(false)
      .openapi({ description: 'true: the writer failed before the end (the message says so).' }),
  })
  .strict()
  .openapi('StreamFinishInput');
export type FinishInput = z.infer<typeof FinishInput>;

export const StreamsQuery = z.object({
  parent_id: MessageId.optional(),
  channel_id: MessageId.optional(),
});
export type StreamsQuery = z.infer<typeof StreamsQuery>;

const LiveUserOutput = z.object({ uid: z.string(), user_tag: z.string() }).openapi('LiveUser');

export const StreamOutput = z
  .object({
    stream_id: z.string(),
    state: z.enum(['open', 'stopping', 'finishing', 'ended']),
    author: LiveUserOutput,
    parent_id: z.string().nullable().openapi({ description: 'Null when you may not see the parent.' }),
    channel_ids: z
      .array(z.string())
      .openapi({ description: 'Its channels you belong to (all of them for the writer).' }),
    public: z.boolean(),
    seq: z.number().int().openapi({ description: 'Chunks written so far.' }),
    length: z.number().int().openapi({ description: 'Characters written so far.' }),
    text: z.string().openapi({ description: 'Chunks 1..seq joined.' }),
    started_at: z.string(),
    updated_at: z.string(),
    stop: z.object({ by: LiveUserOutput.nullable(), at: z.string() }).nullable().openapi({
      description:
        'Who asked to stop it and when (by is null when a BCC recipient stopped it and you are not the writer).',
    }),
    ended: z.enum(['finished', 'stopped', 'incomplete', 'abandoned']).nullable(),
    message_id: z.string().nullable().openapi({ description: 'The finished message, once it is posted.' }),
  })
  .openapi('Stream');
export type StreamOutput = z.infer<typeof StreamOutput>;

export const ChunkResult = z
  .object({ stream_id: z.string(), seq: z.number().int(), length: z.number().int() })
  .openapi('StreamChunkResult');

export const FinishResult = z
  .object({
    stream: StreamOutput,
    message: MessageOutput.nullable().openapi({
      description: 'The posted message, as you see it; null when the stream left none.',
    }),
  })
  .openapi('StreamFinishResult');

export const StreamList = z.object({ streams: z.array(StreamOutput) }).openapi('StreamList');
