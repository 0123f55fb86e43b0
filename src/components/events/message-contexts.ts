// The conversation context of each new message an event hands out, for the recipients that ask for
// it (decision 028): a webhook endpoint with `include_context` (PATCH /v1/managed/users/{uid}/endpoint),
// /v1/ws/v1?include_context=true, and the subscription's `include_context` argument. Each message of
// `content.messages` of a `sent`, `ping`, `added` or `channels` event then carries `message_context`,
// exactly what GET /v1/messages/{message_id}/context (readMessageContext) answers the recipient with
// its default bounds: read with the recipient as the caller, so it shows nothing the recipient may not
// see. Nothing here runs unless asked: the default payloads stay as they were, built as before.
import type { Caller } from '../../platform/auth/caller.js';
import { hasScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { PrincipalRecord } from '../identity/identity-repository.js';
import { DEFAULT_CONTEXT_CHARS, DEFAULT_CONTEXT_ENTRIES } from '../context/context.schemas.js';
import { readMessageContext } from '../context/read-context.js';
import type { ClientEvent, EventMessage } from './notification-event.js';

/** The bounds a delivered context is read with: the context read's defaults. */
const DELIVERED_BOUNDS = { limit: DEFAULT_CONTEXT_ENTRIES, max_chars: DEFAULT_CONTEXT_CHARS };

/** Contexts read at once for one event (a batch post may hand a recipient many messages). */
const READS_AT_ONCE = 8;

/** The event types whose messages are new to the recipient, and so get their context. */
const WITH_CONTEXT: ReadonlySet<ClientEvent['type']> = new Set(['sent', 'ping', 'added', 'channels']);

/**
 * The event with `message_context` on each of its messages, as `caller` (the recipient) may read
 * it; other event types unchanged. A message whose context answers 404 became invisible to the
 * recipient (or was deleted) since the event was built: it is left out as the event itself would
 * leave it out, and an event left with no message is not handed out (null). A recipient that lacks
 * `messages.read` (its grant was cut) gets the event without contexts: the read would refuse it.
 * Never changes `event`, whose content may be shared with other recipients (event-payloads.ts).
 */
export async function withMessageContexts(
  ctx: AppContext,
  caller: Caller,
  event: ClientEvent,
): Promise<ClientEvent | null> {
  if (!WITH_CONTEXT.has(event.type) || !('messages' in event.content)) return event;
  if (!hasScope(caller, 'messages.read')) return event;
  const { messages } = event.content;
  const read: (EventMessage | null)[] = [];
  for (let start = 0; start < messages.length; start += READS_AT_ONCE) {
    const slice = messages.slice(start, start + READS_AT_ONCE);
    read.push(...(await Promise.all(slice.map((message) => withContext(ctx, caller, message)))));
  }
  const kept = read.filter((message): message is EventMessage => message !== null);
  if (kept.length === 0) return null;
  return { ...event, content: { ...event.content, messages: kept } } as ClientEvent;
}

async function withContext(
  ctx: AppContext,
  caller: Caller,
  message: EventMessage,
): Promise<EventMessage | null> {
  try {
    const context = await readMessageContext(ctx, caller, message.id, DELIVERED_BOUNDS);
    return { ...message, message_context: context };
  } catch (error) {
    if (error instanceof AppError && error.code === 'message_not_found') return null;
    throw error;
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
