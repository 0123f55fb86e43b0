// The conversation context of each new message an event hands out, for the recipients that ask for
// it (decision 028): a webhook endpoint with `include_context` (PATCH /v1/managed/users/{uid}/endpoint),
// /v1/ws/v1?include_context=true, and the subscription's `include_context` argument. Each message of
// `content.messages` of a `sent`, `ping`, `added` or `channels` event then carries `message_context`,
// exactly what GET /v1/messages/{message_id}/context (readMessageContext) answers the recipient with
// its default bounds: read with the recipient as the caller, so it shows nothing the recipient may not
// see. Nothing here runs unless asked: the default payloads stay as they were, built as before.
//
// What the contexts of one post may cost (security review 2026-12-02, finding 3: twenty sockets of
// one account asking for contexts made another reader 32 times slower at p50, Neo4j's reads 52
// times as many):
//   - a context is read once per recipient and message, however many sockets, subscriptions and
//     webhook attempts of that account hand the event out at about the same time (kept KEPT_MS);
//   - an event gives contexts to its first CONTEXTS_PER_EVENT messages only; the others come without
//     `message_context`, which the SDKs then read when the handler asks (as for any event without);
//   - at most READS_AT_ONCE context reads run at once on an instance, whoever asked: events that
//     carry contexts wait for them, everyone else's requests do not.
import pLimit from 'p-limit';
import type { Caller } from '../../platform/auth/caller.js';
import { hasScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { PrincipalRecord } from '../identity/identity-repository.js';
import {
  DEFAULT_CONTEXT_CHARS,
  DEFAULT_CONTEXT_ENTRIES,
  type MessageContext,
} from '../context/context.schemas.js';
import { readMessageContext } from '../context/read-context.js';
import type { ClientEvent, EventMessage } from './notification-event.js';

/** The bounds a delivered context is read with: the context read's defaults. */
const DELIVERED_BOUNDS = { limit: DEFAULT_CONTEXT_ENTRIES, max_chars: DEFAULT_CONTEXT_CHARS };

/** Messages of one event that get their context; the rest are read when the handler asks. */
export const CONTEXTS_PER_EVENT = 10;

/** Context reads running at once on this instance, across all recipients. */
const READS_AT_ONCE = 2;

/** How long a context (or an event with contexts) read for one recipient answers its other connections. */
const KEPT_MS = 2_000;
/** Contexts kept at most (a bound on memory when many recipients ask at once). */
const MAX_KEPT = 5_000;

/** The event types whose messages are new to the recipient, and so get their context. */
const WITH_CONTEXT: ReadonlySet<ClientEvent['type']> = new Set(['sent', 'ping', 'added', 'channels']);

interface Kept {
  at: number;
  /** A context (per recipient and message) or a whole event with contexts (per recipient and event). */
  value: Promise<unknown>;
}

/** Per instance: the limiter of context reads, and the contexts read lately, by recipient and message. */
const state = new WeakMap<AppContext, { limit: ReturnType<typeof pLimit>; kept: Map<string, Kept> }>();

function stateOf(ctx: AppContext) {
  let found = state.get(ctx);
  if (!found) {
    found = { limit: pLimit(READS_AT_ONCE), kept: new Map() };
    state.set(ctx, found);
  }
  return found;
}

/**
 * The event with `message_context` on its first CONTEXTS_PER_EVENT messages, as `caller` (the
 * recipient) may read it; other event types unchanged. A message whose context answers 404 became
 * invisible to the recipient (or was deleted) since the event was built: it is left out as the event
 * itself would leave it out, and an event left with no message is not handed out (null). A recipient
 * that lacks `messages.read` (its grant was cut) gets the event without contexts: the read would
 * refuse it. Never changes `event`, whose content may be shared with other recipients
 * (event-payloads.ts).
 *
 * `eventId` names the logged event: the recipient's connections that hand it out within KEPT_MS
 * share one answer, whose content is frozen, so a socket serialises and cuts it once for all of
 * them (websocket-notifications.ts, event-budget.ts). Twenty sockets of one account each built,
 * serialised and cut their own copy of a 160 KiB frame (2026-12-02).
 */
export function withMessageContexts(
  ctx: AppContext,
  caller: Caller,
  event: ClientEvent,
  eventId: string,
): Promise<ClientEvent | null> {
  if (!WITH_CONTEXT.has(event.type) || !('messages' in event.content)) return Promise.resolve(event);
  if (!hasScope(caller, 'messages.read')) return Promise.resolve(event);
  const { messages } = event.content;
  const key = `${caller.uid}|${eventId}|${messages.map((m) => m.id).join(',')}`;
  return kept(ctx, key, async () => {
    const read = await Promise.all(
      messages.map((message, i) =>
        i < CONTEXTS_PER_EVENT ? withContext(ctx, caller, message) : Promise.resolve(message),
      ),
    );
    const shown = read.filter((message): message is EventMessage => message !== null);
    if (shown.length === 0) return null;
    return { ...event, content: Object.freeze({ ...event.content, messages: shown }) } as ClientEvent;
  });
}

async function withContext(
  ctx: AppContext,
  caller: Caller,
  message: EventMessage,
): Promise<EventMessage | null> {
  const context = await contextFor(ctx, caller, message.id);
  return context ? { ...message, message_context: context } : null;
}

/** The context of the message as the recipient reads it, once for all its connections; null: 404. */
function contextFor(ctx: AppContext, caller: Caller, messageId: string): Promise<MessageContext | null> {
  const { limit } = stateOf(ctx);
  return kept(ctx, `${caller.uid}|${messageId}`, () => limit(() => readOrNull(ctx, caller, messageId)));
}

/** What `read` answers for `key`, kept KEPT_MS; a failed read is not kept (the next one reads again). */
function kept<T>(ctx: AppContext, key: string, read: () => Promise<T>): Promise<T> {
  const { kept: entries } = stateOf(ctx);
  const now = Date.now();
  const found = entries.get(key);
  if (found && now - found.at < KEPT_MS) return found.value as Promise<T>;
  if (entries.size >= MAX_KEPT) dropOld(entries, now);
  const value = read();
  entries.set(key, { at: now, value });
  value.catch(() => entries.get(key)?.value === value && entries.delete(key));
  return value;
}

async function readOrNull(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
): Promise<MessageContext | null> {
  try {
    return await readMessageContext(ctx, caller, messageId, DELIVERED_BOUNDS);
  } catch (error) {
    if (error instanceof AppError && error.code === 'message_not_found') return null;
    throw error;
  }
}

function dropOld(kept: Map<string, Kept>, now: number): void {
  for (const [key, entry] of kept) if (now - entry.at >= KEPT_MS) kept.delete(key);
  // Still full (a burst within KEPT_MS): the oldest half goes (a Map iterates in insertion order).
  if (kept.size >= MAX_KEPT) {
    let drop = kept.size / 2;
    for (const key of kept.keys()) {
      if (drop-- <= 0) break;
      kept.delete(key);
    }
  }
}

/**
 * The recipient of a webhook as a caller: a delivery carries no credential, so the recipient reads
 * as itself with its account's grant now (identity's principal fragment: a bot holds no more than
 * its managers, a deactivated one nothing), which is the most any credential of it could hold.
 */
export function recipientCaller(principal: PrincipalRecord): Caller {
  return {
    uid: principal.uid,
    userTag: principal.user_tag,
    isManaged: principal.is_managed,
    permissions: principal.active ? principal.scopes : [],
    ceiling: null,
    via: 'api_key',
    sessionId: null,
    sessionToken: null,
    keyId: null,
    actingManagerUid: null,
  };
}
