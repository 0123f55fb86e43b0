// Shapes of the conversation context read (GET /v1/messages/{message_id}/context and GraphQL
// Query.messageContext): they validate the REST query and the GraphQL arguments alike, and feed the
// OpenAPI document. The rules are docs/decisions/026-conversation-context.md.
import { z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';
import { Attachment } from '../messages/messages.schemas.js';

/** Entries one context answers at most, and by default (the message itself included). */
export const MAX_CONTEXT_ENTRIES = 500;
export const DEFAULT_CONTEXT_ENTRIES = 100;
/** Content characters one context answers at most, and by default (the message itself always comes). */
export const MAX_CONTEXT_CHARS = 1_000_000;
export const DEFAULT_CONTEXT_CHARS = 100_000;

export const ContextQuery = z.object({
  limit: queryInteger({ min: 1, max: MAX_CONTEXT_ENTRIES })
    .default(DEFAULT_CONTEXT_ENTRIES)
    .openapi({
      description: `Entries at most, the message included: 1–${MAX_CONTEXT_ENTRIES}.`,
    }),
  max_chars: queryInteger({ min: 1, max: MAX_CONTEXT_CHARS })
    .default(DEFAULT_CONTEXT_CHARS)
    .openapi({
      description:
        `Content characters at most, summed over the entries: 1–${MAX_CONTEXT_CHARS}. The message itself ` +
        'always comes, even when it alone is longer.',
    }),
});
export type ContextQuery = z.infer<typeof ContextQuery>;

export const ContextAuthor = z
  .object({ uid: z.string(), user_tag: z.string(), is_bot: z.boolean() })
  .openapi('ContextAuthor');

export const CONTEXT_PARTS = ['starting_context', 'thread'] as const;
export const CONTEXT_ROLES = ['assistant', 'user'] as const;

export const ContextEntry = z
  .object({
    id: z.string(),
    part: z.enum(CONTEXT_PARTS).openapi({
      description:
        "`starting_context`: the caller's starting context (a bot's context origin and its chain of " +
        '`default_outgoing` children); `thread`: the reply ancestors of the message, then the message.',
    }),
    role: z.enum(CONTEXT_ROLES).openapi({
      description:
        'Relative to you, as a chat-model prompt names turns: `assistant` for the messages you wrote, ' +
        '`user` for everyone else’s (`author` tells those authors apart).',
    }),
    author: ContextAuthor,
    content: z.string(),
    timestamp: z.string().openapi({ description: 'When the message was posted.' }),
    attachments: z.array(Attachment),
  })
  .openapi('ContextEntry');
export type ContextEntry = z.infer<typeof ContextEntry>;

export const MessageContext = z
  .object({
    message_id: z.string(),
    entries: z.array(ContextEntry).openapi({
      description:
        'Oldest first: the starting context (a bot caller with a context origin only), then the ' +
        'ancestors from the thread root down, then the message itself, which is always the last entry.',
    }),
    truncated: z.boolean().openapi({
      description:
        'true when `limit` or `max_chars` cut something: the oldest ancestors first, then the end of ' +
        'the starting context; the message itself is never cut.',
    }),
  })
  .openapi('MessageContext');
export type MessageContext = z.infer<typeof MessageContext>;
