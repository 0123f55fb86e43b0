// /v1 chat completions (decision 033):
//   POST /v1/chat/completions    a bot answers as an OpenAI chat model, in a Skein thread; JSON or SSE
// The answer is written once the bot begins its reply, so every refusal (a timeout included) is an
// HTTP status an OpenAI client maps to its exception. With `stream: true` the chunks follow the
// bot's streamed reply as it is written; a client that disconnects stops that stream. The post
// limit counts the messages a request posts, as POST /v1/messages counts them.
import type { Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { postedTurnCount } from './chat-turns.js';
import { createCompletion, type Completion, type CompletionEnd } from './create-completion.js';
import { ChatCompletion, ChatCompletionRequest, type ChatCompletionChunk } from './completions.schemas.js';
import { openAiError } from './openai-errors.js';
import { countTokens } from './token-count.js';

export function mountCompletionRoutes(routes: RouteTable, ctx: AppContext): void {
  const timeout = ctx.config.completions.timeoutMs / 1000;
  routes.add({
    method: 'post',
    path: '/v1/chat/completions',
    tag: 'models',
    summary: 'Chat with a bot as an OpenAI model',
    description:
      "OpenAI's chat-completions request and answer, so any OpenAI-compatible tool talks to a bot: " +
      '`OpenAI(base_url=<skein>/v1, api_key=<a Skein token or sk_ key>).chat.completions.create(model=' +
      '<an id of GET /v1/models>, messages=[…])`. It is an ordinary Skein conversation: your `user` turns ' +
      'are posted as your messages to the bot (the last one notifies it; earlier ones do not), and the ' +
      "bot's reply to the last one, posted whole or streamed (`POST /v1/streams`), is the answer. " +
      'A request posts at most 100 messages (422 beyond, nothing posted), and each counts against ' +
      'SKEIN_RATE_LIMIT_POSTS_PER_MIN as in POST /v1/messages: one per user turn after the last assistant ' +
      'turn, and one for the first message of a new thread when it holds system text or history. ' +
      'Re-sending the earlier turns continues the same thread when they are exactly a thread of yours ' +
      "with the bot from its root (the bot's turns may come back cut, as max_completion_tokens cut " +
      'them); otherwise a new thread starts, its first message (tagged `chat:system`, not notified) ' +
      'holding the system and developer turns and any earlier turns written out. With `stream: true` ' +
      'the answer is server-sent events of `chat.completion.chunk`, one per piece of the streamed ' +
      "reply (one for a reply posted whole), then `data: [DONE]`; leaving stops the bot's stream. " +
      `A bot that does not begin its reply within SKEIN_COMPLETION_TIMEOUT_SECONDS (${timeout} s) gives ` +
      '504 `completion_timeout` with `x-should-retry: false`, and your turns are deleted. `usage` counts ' +
      'tokens by a stated rule: runs of letters, digits and underscores, and each other visible ' +
      "character. Every error body holds the contract's `detail` and `code` and OpenAI's `error` " +
      '`{message, type, param, code}`. Needs `messages.write` and `messages.read`.',
    auth: 'required',
    body: ChatCompletionRequest,
    response: ChatCompletion,
    accountLimit: (limits) => limits.postsByAccount,
    accountLimitCost: postedTurnCount,
    errors: {
      403: '`insufficient_scope`: messages.write or messages.read missing.',
      404: '`model_not_found`: no bot has this id, or it is deactivated or banned.',
      422:
        '`validation_error`: not a chat-completions request Skein can answer (last turn not `user`, ' +
        'non-text parts, `n` ≠ 1, tools, more than 100 messages to post).',
      429:
        '`rate_limited`: the post limit (one point per message posted), or too many completions open ' +
        '(SKEIN_MAX_OPEN_COMPLETIONS_PER_USER).',
      504: '`completion_timeout`: the bot did not begin its reply in time; your turns were taken back.',
    },
    // The handler answers the completion under way (turns posted); `send` writes it as the
    // documented ChatCompletion, or as its chunks, once the bot begins.
    handler: ({ caller, credentials, body }) => createCompletion(ctx, caller, credentials, body),
    send: sendCompletion,
  });
}

async function sendCompletion(res: Response, completion: Completion): Promise<void> {
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    void completion.close({ stopStream: true });
  };
  res.on('close', () => {
    if (!res.writableFinished) leave();
  });
  // A client that left while its turns were posted closed the connection before the listener
  // above was there: it would hold its completion slot until the timeout.
  if (res.req.socket.destroyed) leave();
  // Any failure up to here is still an HTTP status (the error handler writes it).
  await completion.begun();
  if (left) return;
  if (!completion.stream) {
    let text = '';
    let end: CompletionEnd;
    for (;;) {
      const piece = await completion.next();
      if ('end' in piece) {
        end = piece.end;
        break;
      }
      text += piece.text;
    }
    if (!left) res.json(wholeAnswer(completion, text, end));
    return;
  }
  res.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const send = (data: object | string) =>
    res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  let text = '';
  try {
    send(chunk(completion, { role: 'assistant', content: '' }, null, null));
    for (;;) {
      const piece = await completion.next();
      if (left) return;
      if ('end' in piece) {
        send(chunk(completion, {}, piece.end.finish_reason, piece.end.reply_message_id));
        if (completion.include_usage)
          send({
            ...chunk(completion, {}, null, piece.end.reply_message_id),
            choices: [],
            usage: usage(completion, text),
          });
        break;
      }
      text += piece.text;
      send(chunk(completion, { content: piece.text }, null, null));
    }
  } catch (error) {
    // Headers are out: the failure goes as the error event OpenAI's clients raise.
    const appError =
      error instanceof AppError ? error : new AppError('internal_error', 'The completion failed.');
    send({ error: openAiError(appError.status, appError.toBody()) });
  }
  send('[DONE]');
  res.end();
}

function usage(completion: Completion, text: string) {
  const completion_tokens = countTokens(text);
  return {
    prompt_tokens: completion.prompt_tokens,
    completion_tokens,
    total_tokens: completion.prompt_tokens + completion_tokens,
  };
}

function exchange(completion: Completion, replyId: string | null) {
  return {
    thread_id: completion.thread_id,
    turn_message_id: completion.turn_message_id,
    reply_message_id: replyId,
  };
}

function wholeAnswer(completion: Completion, text: string, end: CompletionEnd): ChatCompletion {
  return {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        logprobs: null,
        finish_reason: end.finish_reason,
      },
    ],
    usage: usage(completion, text),
    skein: exchange(completion, end.reply_message_id),
  };
}

function chunk(
  completion: Completion,
  delta: ChatCompletionChunk['choices'][number]['delta'],
  finishReason: ChatCompletionChunk['choices'][number]['finish_reason'],
  replyId: string | null,
): ChatCompletionChunk {
  return {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(completion.include_usage ? { usage: null } : {}),
    skein: exchange(completion, replyId),
  };
}
