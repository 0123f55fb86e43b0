// POST /v1/chat/completions: a bot answers as an OpenAI chat model, in an ordinary Skein thread
// (decision 033). The caller's turns are posted as the caller's messages to the bot (a continuing
// conversation replies to the thread it re-sends); the bot learns of the last one as of any
// message (events, webhooks, the SDKs' run loop) and answers it as it answers anything: its reply,
// streamed or posted whole, is the completion. Nothing here knows how the bot works.
// The request is refused before anything is written (unknown model, scope, input, limits); a bot
// that does not begin its reply within SKEIN_COMPLETION_TIMEOUT_SECONDS gets its turns taken back,
// so a refused or timed-out request leaves no thread behind. Once the client holds part of the
// answer the turns stay, whatever follows. The caller's credential is judged again before each
// piece of the answer is handed out (completion-credential.ts).
import type { Caller, Credentials } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, validationError, type ErrorCode } from '../../platform/errors.js';
import { consumeAccountLimit } from '../../platform/rate-limits.js';
import { deleteMessagesBatch } from '../messages/delete-messages.js';
import { MAX_ITEMS_PER_POST } from '../messages/messages.schemas.js';
import { postMessages } from '../messages/post-messages.js';
import { stopStream } from '../live/stop-stream.js';
import { VERSION_SEPARATOR } from '../models/list-models.js';
import { PRELUDE_TAG, assertFits, readPrompt, textOf } from './chat-turns.js';
import { CompletionCredential, assertMayComplete } from './completion-credential.js';
import type { ChatCompletionRequest, FinishReason } from './completions.schemas.js';
import { findModelBot, type ModelBot } from './completions-repository.js';
import { placeTurns } from './place-turns.js';
import { ReplyWaiter } from './reply-waiter.js';
import { countTokens, cutToTokens } from './token-count.js';

/** What a version tag may hold (the tag rule); a version that does not fit is not tagged. */
const TAG_PATTERN = /^[a-z0-9_.:/-]{1,64}$/;

/** Completions held open per account on this instance. */
const openByAccount = new WeakMap<AppContext, Map<string, number>>();

export interface CompletionEnd {
  finish_reason: FinishReason;
  /** Null when the answer was cut while the bot still streamed (its message comes later). */
  reply_message_id: string | null;
}

/** A completion under way: its turns are posted; its answer comes piece by piece. */
export interface Completion {
  id: string;
  created: number;
  model: string;
  stream: boolean;
  include_usage: boolean;
  prompt_tokens: number;
  thread_id: string;
  turn_message_id: string;
  /** Waits for the bot to begin (a stream or a message); 504 completion_timeout if it does not in time. */
  begun(): Promise<void>;
  /**
   * The answer's next piece of text, or how it ended; throws (and closes) when the caller's
   * credential no longer holds, or the answer failed after it began.
   */
  next(): Promise<{ text: string } | { end: CompletionEnd }>;
  /** The client left or the answer is complete: stop listening, and a reply still streaming. */
  close(options?: { stopStream: boolean }): Promise<void>;
}

export async function createCompletion(
  ctx: AppContext,
  caller: Caller,
  credentials: Credentials,
  input: ChatCompletionRequest,
): Promise<Completion> {
  // Noted first: a change to the credential from here on is judged before the answer is handed out.
  const credential = new CompletionCredential(ctx, credentials, caller, ctx.sessions.generation);
  assertMayComplete(caller);
  const prompt = readPrompt(input.messages);
  const { bot, version } = await assertModelAnswers(ctx, input.model);
  const maxTokens = smallest(input.max_tokens, input.max_completion_tokens);
  const release = holdSlot(ctx, caller);
  let waiter: ReplyWaiter | undefined;
  try {
    const place = await placeTurns(ctx, caller, bot.uid, prompt);
    if (place.prelude !== null) assertFits(place.prelude, ['body', 'messages']);
    waiter = await ReplyWaiter.open(ctx, caller, bot.uid);
    const posted = await postTurns(ctx, caller, bot, version, place, prompt.finals);
    const turn = posted.at(-1)!;
    waiter.expect(turn.id);
    return answer(ctx, caller, credential, input, waiter, release, posted, maxTokens, {
      prompt_tokens: input.messages.reduce((sum, t) => sum + countTokens(textOf(t)), 0),
      thread_id: turn.root_id ?? turn.id,
      turn_message_id: turn.id,
    });
  } catch (error) {
    waiter?.close();
    release();
    throw error;
  }
}

async function assertModelAnswers(
  ctx: AppContext,
  model: string,
): Promise<{ bot: ModelBot; version: string | null }> {
  const at = model.indexOf(VERSION_SEPARATOR);
  const tag = at < 0 ? model : model.slice(0, at);
  const version = at < 0 ? null : model.slice(at + 1);
  const bot = await findModelBot(ctx.db, tag);
  if (!bot || (version !== null && !bot.versions.includes(version)))
    throw new AppError('model_not_found', `The model '${model}' does not exist: GET /v1/models lists them.`);
  if (!bot.answers) {
    throw new AppError(
      'model_not_found',
      bot.deactivated
        ? `The model '${model}' is a deactivated bot: it cannot answer.`
        : `The model '${model}' is a bot that may not read or write now.`,
    );
  }
  return { bot, version };
}

function smallest(...bounds: (number | null | undefined)[]): number | null {
  const given = bounds.filter((b): b is number => typeof b === 'number');
  return given.length === 0 ? null : Math.min(...given);
}

/** One of the account's open completions on this instance; beyond the ceiling, 429. */
function holdSlot(ctx: AppContext, caller: Caller): () => void {
  let open = openByAccount.get(ctx);
  if (!open) openByAccount.set(ctx, (open = new Map<string, number>()));
  const held = open.get(caller.uid) ?? 0;
  const { maxOpenPerUser, timeoutMs } = ctx.config.completions;
  if (held >= maxOpenPerUser) {
    throw new AppError(
      'rate_limited',
      `You already have ${maxOpenPerUser} completions waiting for their bots; wait for one (SKEIN_MAX_OPEN_COMPLETIONS_PER_USER).`,
      { headers: { 'Retry-After': String(Math.min(60, Math.ceil(timeoutMs / 1000))) } },
    );
  }
  open.set(caller.uid, held + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const now = (open.get(caller.uid) ?? 1) - 1;
    if (now <= 0) open.delete(caller.uid);
    else open.set(caller.uid, now);
  };
}

interface PostedTurn {
  id: string;
  root_id: string | null;
}

/**
 * Posts the prelude (if any) and the user turns as one chain of replies, all or nothing: at most
 * MAX_ITEMS_PER_POST messages, as one POST /v1/messages holds (422 beyond, nothing posted). The
 * route charged the post limit one point per user turn; a prelude costs one more, charged here,
 * where it is known whether the history continues a thread or needs one.
 */
async function postTurns(
  ctx: AppContext,
  caller: Caller,
  bot: ModelBot,
  version: string | null,
  place: { parent_id: string | null; prelude: string | null },
  finals: string[],
): Promise<PostedTurn[]> {
  // Only the last turn tells the bot: it answers that one, with the others in its context.
  const to = (notify: boolean) => [{ uid: bot.uid, public: true, notify }];
  const versionTag = version !== null && TAG_PATTERN.test(`model:${version}`) ? [`model:${version}`] : [];
  const items = [
    ...(place.prelude === null
      ? []
      : [{ content: place.prelude, recipients: to(false), tags: [PRELUDE_TAG] }]),
    ...finals.map((content, i) => ({
      content,
      recipients: to(i === finals.length - 1),
      tags: i === finals.length - 1 ? versionTag : [],
    })),
  ].map((item, i) => ({
    ...item,
    // Chained: each item after the first replies to the one before (post-messages.ts).
    ...(i === 0 && place.parent_id !== null ? { parent_id: place.parent_id, audience: 'parent' } : {}),
  }));
  if (items.length > MAX_ITEMS_PER_POST) {
    throw validationError([
      {
        loc: ['body', 'messages'],
        msg:
          `a request posts at most ${MAX_ITEMS_PER_POST} messages (its user turns after the last ` +
          `assistant turn, and a first message for the system text and history); this one would post ${items.length}`,
        type: 'too_big',
      },
    ]);
  }
  if (place.prelude !== null) await consumeAccountLimit(ctx.limits.postsByAccount, caller, 1);
  const results = await postMessages(ctx, caller, items, undefined);
  const posted = results.flatMap((r) => (r.ok ? [{ id: r.message.id, root_id: r.message.root_id }] : []));
  for (const result of results) {
    if (result.ok) continue;
    if (posted.length > 0)
      await deleteMessagesBatch(
        ctx,
        caller,
        posted.map((p) => p.id),
        false,
      );
    throw new AppError(result.error.code as ErrorCode, result.error.detail);
  }
  return posted;
}

function answer(
  ctx: AppContext,
  caller: Caller,
  credential: CompletionCredential,
  input: ChatCompletionRequest,
  waiter: ReplyWaiter,
  release: () => void,
  posted: PostedTurn[],
  maxTokens: number | null,
  exchange: { prompt_tokens: number; thread_id: string; turn_message_id: string },
): Completion {
  const { timeoutMs } = ctx.config.completions;
  const streamed = input.stream === true;
  /** Until the reply begins, and again after a streamed reply is abandoned, the wait ends here. */
  let deadline = Date.now() + timeoutMs;
  /** What the client has been given so far. */
  let given = '';
  let begun = false;
  /** A streamed reply was abandoned: the wait is for the plain reply the SDKs post then. */
  let abandoned = false;
  /**
   * The client holds part of the answer: a streamed completion's transport writes the headers and
   * the first chunk once it has begun. From then on the turns stay, whatever happens.
   */
  let handedOut = false;
  let ended: CompletionEnd | null = null;
  const out: ({ text: string } | { end: CompletionEnd })[] = [];

  const close = async (options = { stopStream: false }) => {
    const streamId = waiter.stream;
    waiter.close();
    release();
    if (options.stopStream && streamId !== null) {
      await stopStream(ctx, caller, streamId).catch((error: unknown) =>
        ctx.log.debug({ err: error, stream_id: streamId }, 'Stopping a completion stream failed'),
      );
    }
  };

  /** Gives `text` within the token bound; `full` once the bound cut something off. */
  const give = (text: string): { text: string; full: boolean } => {
    if (maxTokens === null) {
      given += text;
      return { text, full: false };
    }
    const cut = cutToTokens(given + text, maxTokens);
    const piece = cut.text.slice(given.length);
    given = cut.text;
    return { text: piece, full: cut.cut };
  };

  const end = (finish_reason: FinishReason, reply_message_id: string | null) => {
    ended = { finish_reason, reply_message_id };
    out.push({ end: ended });
  };

  /** Nothing came in time: the turns are taken back unless the client already holds part of the answer. */
  const timedOut = async (): Promise<AppError> => {
    await close();
    const seconds = Math.round(timeoutMs / 1000);
    const what = abandoned
      ? `The bot's streamed reply was abandoned and no reply followed within ${seconds} s`
      : `The bot did not begin its reply within ${seconds} s`;
    if (handedOut) {
      return new AppError(
        'completion_timeout',
        `${what} (SKEIN_COMPLETION_TIMEOUT_SECONDS); your turn stays.`,
        {
          headers: { 'x-should-retry': 'false' },
        },
      );
    }
    // Taken back: a retry starts clean, and the bot's late answer finds no turn to answer.
    const ids = posted.map((p) => p.id);
    await deleteMessagesBatch(ctx, caller, ids, false).catch((error: unknown) =>
      ctx.log.warn(
        { err: error, message_ids: ids, uid: caller.uid },
        'Taking back the turns of a timed-out completion failed; they stay in the thread',
      ),
    );
    return new AppError(
      'completion_timeout',
      `${what} (SKEIN_COMPLETION_TIMEOUT_SECONDS); your turn was taken back.`,
      { headers: { 'x-should-retry': 'false' } },
    );
  };

  /** Reads the waiter until the client has something more (text, or the end). */
  const pump = async (): Promise<void> => {
    while (out.length === 0) {
      // Until the reply begins (or after its stream is abandoned) the completion's timeout bounds
      // the wait; while it streams, the stream's own idle rule does (it ends abandoned, which is news).
      const news = await waiter.next(begun ? null : deadline);
      if (news === null && waiter.isClosed) {
        // Closed by the transport (the client left): nothing more is given.
        end('stop', null);
        return;
      }
      if (news === null) throw await timedOut();
      if (news.kind === 'abandoned') {
        // A lost stream: the SDKs then post what they wrote as a plain reply, which is waited for,
        // a full timeout from now (the first may be long past after a long stream).
        begun = false;
        abandoned = true;
        deadline = Date.now() + timeoutMs;
        continue;
      }
      begun = true;
      if (news.kind === 'text') {
        const piece = give(news.text);
        if (piece.text !== '') out.push({ text: piece.text });
        if (piece.full) {
          // Cut by the bound: the bot is asked to stop, as a reader's stop asks (decision 031).
          end('length', null);
          await close({ stopStream: true });
        }
      } else if (news.kind === 'message') {
        // Whatever of the message the stream has not given, then the end.
        const content = news.message.content;
        const piece = give(content.startsWith(given) ? content.slice(given.length) : content);
        if (piece.text !== '') out.push({ text: piece.text });
        end(piece.full ? 'length' : 'stop', news.message.id);
        await close();
      }
    }
  };

  /** Runs `step`, then judges the caller's credential before anything more is handed out. */
  const guarded = async <T>(step: () => Promise<T>): Promise<T> => {
    try {
      const result = await step();
      await credential.assertCurrent();
      return result;
    } catch (error) {
      await close();
      throw error;
    }
  };

  return {
    id: `chatcmpl-${exchange.turn_message_id}`,
    created: Math.floor(Date.now() / 1000),
    model: input.model,
    stream: streamed,
    include_usage: input.stream_options?.include_usage === true,
    ...exchange,
    begun: async () => {
      await guarded(pump);
      handedOut = streamed;
    },
    next: () =>
      guarded(async () => {
        if (out.length === 0 && ended === null) await pump();
        return out.shift() ?? { end: ended! };
      }),
    close,
  };
}
