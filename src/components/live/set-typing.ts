// POST /v1/typing, GraphQL setTyping: an account says it is typing (with a short status, such as
// "searching the docs…") in reply to a message, in a channel, or to named users. It reaches over
// live connections exactly who could see what it is typing: a reply to a message goes to the
// message's author, its CC recipients and the members of its channels that the typist belongs to
// (who an `"audience": "parent"` reply reaches; BCC recipients are left out); a channel to its
// members; a conversation to the users named. Never to the typist, never to Neo4j, the event log or
// a webhook (decision 031): the audience is one read, kept while the signal renews.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, validationError } from '../../platform/errors.js';
import { parseInput, type InputLocation } from '../../platform/validation.js';
import { consumeAccountLimit } from '../../platform/rate-limits.js';
import { planAudience } from '../messages/post-messages.js';
import type { Audience, TypingTarget } from './live-frames.js';
import { TypingInput, type TypingResult } from './live.schemas.js';
import {
  TYPING_EXPIRES_MS,
  TYPING_RENEW_MS,
  TYPING_RENEW_PUBLISH_MS,
  TypingBoard,
  type TypingNews,
} from './typing-board.js';

/** How long a judged audience is reused for renewals on this instance. */
const AUDIENCE_KEPT_MS = 15_000;
const AUDIENCES_KEPT_AT_MOST = 10_000;

export interface Judged {
  target: TypingTarget;
  audience: Audience;
  at: number;
}

export async function setTyping(
  ctx: AppContext,
  caller: Caller,
  input: TypingInput,
  inputAt: InputLocation = 'body',
): Promise<TypingResult> {
  assertScope(caller, 'messages.write');
  const { target, audience } = await judgeTarget(ctx, caller, input, inputAt);
  const id = TypingBoard.idOf(caller.uid, target);
  const board = ctx.live.typing;
  const known = board.lookup(id);
  const status = input.status ?? null;
  const news: TypingNews = {
    k: 'typing',
    op: input.op,
    user: { uid: caller.uid, user_tag: caller.userTag },
    target,
    audience,
    status,
  };
  if (input.op === 'stop') {
    if (known) await ctx.events.bus.publishLive(news);
    return { op: 'stop', expires_at: null, renew_in_ms: TYPING_RENEW_MS };
  }
  // A start, a status change, or a renewal when the last one heard is getting old; else nothing.
  if (!known || known.news.status !== status || Date.now() - known.heardAt >= TYPING_RENEW_PUBLISH_MS)
    await ctx.events.bus.publishLive(news);
  return {
    op: 'start',
    expires_at: new Date(Date.now() + TYPING_EXPIRES_MS).toISOString(),
    renew_in_ms: TYPING_RENEW_MS,
  };
}

/**
 * `{"type": "typing", …}` on /v1/ws/v1: the body of POST /v1/typing in a frame, with an optional `id`
 * (at most 64 characters) echoed in the answer. Answers `typing.ok` or an error frame with the
 * contract's code and detail (and the id); counts against the same per-account limit.
 */
export async function typingOverSocket(ctx: AppContext, caller: Caller, frame: object): Promise<object> {
  const body: Record<string, unknown> = { ...frame };
  const rawId = body.id;
  delete body.id;
  delete body.type;
  const id = typeof rawId === 'string' && rawId.length <= 64 ? rawId : null;
  try {
    await consumeAccountLimit(ctx.limits.typingByAccount, caller);
    const input = parseInput(TypingInput, body, 'body');
    return { type: 'typing.ok', id, ...(await setTyping(ctx, caller, input)) };
  } catch (error) {
    if (!(error instanceof AppError)) {
      ctx.log.error({ err: error, uid: caller.uid }, 'typing over the socket failed');
      return { type: 'error', id, code: 'internal_error', detail: 'The typing signal failed.' };
    }
    const { code, detail } = error.toBody();
    return { type: 'error', id, code, detail };
  }
}

/** The target and its audience; a renewal reuses what was judged within AUDIENCE_KEPT_MS. */
async function judgeTarget(
  ctx: AppContext,
  caller: Caller,
  input: TypingInput,
  inputAt: InputLocation,
): Promise<Judged> {
  const key = `${caller.uid}|${input.message_id ?? ''}|${input.channel_id ?? ''}|${JSON.stringify(input.recipients ?? null)}`;
  const judged = ctx.live.audiences;
  const kept = judged.get(key);
  if (kept && Date.now() - kept.at < AUDIENCE_KEPT_MS) return kept;
  const fresh = await readAudience(ctx, caller, input, inputAt);
  judged.delete(key);
  judged.set(key, fresh);
  // Oldest first (a Map keeps insertion order): drop what is past its time, then what is too many.
  for (const [oldKey, entry] of judged) {
    if (judged.size <= AUDIENCES_KEPT_AT_MOST && Date.now() - entry.at < AUDIENCE_KEPT_MS) break;
    judged.delete(oldKey);
  }
  return fresh;
}

/**
 * One read, judged as a post to the same target judges it (planAudience): a reply with
 * `"audience": "parent"` to the message, a post to the channel, or one to the named users; so the
 * errors are the post's (404 for a message one may not see, 403 for a channel one is not in).
 */
async function readAudience(
  ctx: AppContext,
  caller: Caller,
  input: TypingInput,
  inputAt: InputLocation,
): Promise<Judged> {
  const planned = await planAudience(ctx, caller, {
    parent_id: input.message_id ?? null,
    audience: input.message_id ? 'parent' : null,
    recipients: input.recipients ?? [],
    channel_ids: input.channel_id ? [input.channel_id] : [],
    files: [],
  });
  const at = Date.now();
  if (planned.parent) {
    const parent = planned.parent;
    return {
      target: { message_id: parent.id },
      audience: {
        uids: planned.receivers.map((r) => r.uid),
        channel_ids: planned.channel_ids,
        except_uid: caller.uid,
      },
      at,
    };
  }
  if (input.channel_id) {
    return {
      target: { channel_id: input.channel_id },
      audience: { uids: [], channel_ids: [input.channel_id], except_uid: caller.uid },
      at,
    };
  }
  const conversation = [...new Set([caller.uid, ...planned.receivers.map((r) => r.uid)])].sort();
  if (conversation.length < 2) {
    throw validationError([
      { loc: [inputAt, 'recipients'], msg: 'name at least one user besides yourself', type: 'value_error' },
    ]);
  }
  return {
    target: { conversation },
    audience: { uids: conversation, channel_ids: [], except_uid: caller.uid },
    at,
  };
}
