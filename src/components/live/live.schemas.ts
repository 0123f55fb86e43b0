// Shapes of the live operations (decision 031): validation and OpenAPI, shared by REST and GraphQL.
import { z } from '../../platform/openapi.js';
import { MessageId, RecipientInput } from '../messages/messages.schemas.js';
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
