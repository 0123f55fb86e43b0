// Shapes of POST /v1/chat/completions in OpenAI's chat-completions format (they validate the request
// and feed the OpenAPI document). Fields OpenAI defines that Skein has no use for (temperature,
// top_p, seed, …) are accepted and ignored, as OpenAI-compatible servers do, so that a tool's
// defaults never fail a request; what Skein cannot honour (n > 1, tools, non-text parts) is a 422.
// The rules are docs/decisions/033-chat-completions.md.
import { z } from '../../platform/openapi.js';

/** Turns one request may carry (the history a client re-sends included). */
export const MAX_TURNS = 500;

const TextPart = z
  .object({
    type: z.literal('text').openapi({ description: 'Only text parts: a bot reads text.' }),
    text: z.string(),
  })
  .loose();

const TurnContent = z.union([z.string(), z.array(TextPart).min(1)]).openapi({
  description: 'The text, or content parts of type `text` (joined with a newline).',
});

export const ChatTurn = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant']).openapi({
      description:
        "`system` and `developer` become the thread's first message (decision 033); `user` turns are " +
        "posted as yours; `assistant` turns must be the bot's replies already in the thread.",
    }),
    content: TurnContent,
    name: z.string().max(64).optional(),
  })
  .loose();
export type ChatTurn = z.infer<typeof ChatTurn>;

const TokenBound = z.number().int().min(1).max(1_000_000).nullish();

export const ChatCompletionRequest = z
  .object({
    model: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: "An id of GET /v1/models: a bot's user_tag, or `<user_tag>:<version>`." }),
    messages: z
      .array(ChatTurn)
      .min(1)
      .max(MAX_TURNS)
      .openapi({
        description:
          'The conversation so far, the last turn `user`. Sending the earlier turns again (as OpenAI ' +
          'clients do) continues the same Skein thread when they match it.',
      }),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
    max_tokens: TokenBound.openapi({
      description: 'Deprecated name of max_completion_tokens; the smaller of the two applies.',
    }),
    max_completion_tokens: TokenBound.openapi({
      description:
        "Bounds the answer in tokens counted by Skein's rule (decision 033): a longer reply is cut and " +
        '`finish_reason` is `length`; a streamed reply is asked to stop there.',
    }),
    n: z.literal(1).nullish().openapi({ description: 'Only 1: a bot gives one reply.' }),
    user: z.string().max(256).nullish().openapi({ description: 'Accepted; Skein knows who you are.' }),
    metadata: z
      .record(z.string().max(64), z.string().max(512))
      .refine((value) => Object.keys(value).length <= 16, 'at most 16 keys')
      .nullish()
      .openapi({ description: 'Accepted (at most 16 keys) and not stored.' }),
    tools: z.array(z.unknown()).max(0, 'tools are not supported: a bot answers with text').optional(),
  })
  .loose()
  .openapi('ChatCompletionRequest');
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

const Usage = z
  .object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  })
  .openapi('ChatCompletionUsage', {
    description:
      "Tokens by Skein's rule (decision 033): runs of letters and digits, and each other visible character.",
  });

export const FinishReason = z.enum(['stop', 'length']);
export type FinishReason = z.infer<typeof FinishReason>;

const SkeinExchange = z
  .object({
    thread_id: z.string().openapi({ description: "The thread's root message." }),
    turn_message_id: z.string().openapi({ description: 'Your last turn, as posted.' }),
    reply_message_id: z.string().nullable().openapi({ description: "The bot's reply (null in chunks)." }),
  })
  .openapi('ChatCompletionSkein', { description: "Skein's: where the exchange is, beside OpenAI's fields." });

export const ChatCompletion = z
  .object({
    id: z.string().openapi({ description: '`chatcmpl-<turn_message_id>`.' }),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        logprobs: z.null(),
        finish_reason: FinishReason,
      }),
    ),
    usage: Usage,
    skein: SkeinExchange,
  })
  .openapi('ChatCompletion');
export type ChatCompletion = z.infer<typeof ChatCompletion>;

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: 0;
    delta: { role?: 'assistant'; content?: string };
    logprobs: null;
    finish_reason: FinishReason | null;
  }[];
  usage?: z.infer<typeof Usage> | null;
  skein: z.infer<typeof SkeinExchange>;
}
