// What one event may carry, in every transport (socket frame, graphql-ws, webhook body, GET
// /v1/notifications): at most SKEIN_EVENT_MAX_BYTES of JSON (security review 2026-12-02, finding
// 2). Without a bound, a reply of under 1 KiB under ten ancestors of 64 KiB each made a 3.84 MiB
// frame (the spec's `content.context` carries up to 10 ancestors in full), and 12 small replies
// with their contexts one of 8.47 MiB: each closed the recipient's socket as a slow consumer, again
// at every resume from the cursor before it.
//
// An event over the budget is cut, in this order, until it fits, and says so:
//   1. `content.context`, farthest ancestor first; `content.context_truncated: true`. The whole
//      chain is one context read away (GET /v1/messages/{id}/context).
//   2. each message's `message_context`, the largest first, an entry at a time in the context read's
//      own order (oldest ancestors, then the end of the starting context; never the message itself);
//      its `truncated` is then true. One whose message alone does not fit loses `message_context`
//      altogether: the SDKs read it then (decision 028), as for an event that never carried one.
//   3. the messages' content, the longest first, down to a common length; each cut message carries
//      `content_truncated: true` (GET /v1/messages/{id} has it whole). Only an event of many long
//      messages gets here (adding a recipient to a hundred of them, say).
// An event within the budget is handed out as built, with no flag. The socket's budget is kept
// below what it may buffer (realtime-settings.ts), so one event never makes a slow consumer.
import type { MessageContext } from '../context/context.schemas.js';
import type { ClientEvent, EventMessage } from './notification-event.js';

/** Size in bytes of a value's JSON. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * An upper bound of a value's JSON size, without building it (a string's character may take six
 * bytes, \u0001): when it is within the budget, the event is surely within, which spares most
 * events a serialisation of their own.
 */
function jsonBytesAtMost(value: unknown): number {
  if (typeof value === 'string') return value.length * 6 + 2;
  if (value === null || typeof value !== 'object') return 24;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const item of value) bytes += jsonBytesAtMost(item) + 1;
    return bytes;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== undefined) bytes += key.length * 6 + 4 + jsonBytesAtMost(inner);
  }
  return bytes;
}

/** A bound of the event's JSON size that costs no serialisation when the event is small. */
export function eventBytes(event: ClientEvent): number {
  const bound = jsonBytesAtMost(event);
  return bound <= 16 * 1024 ? bound : jsonBytes(event);
}

/** Fitted contents of events shared by many recipients (event-payloads.ts freezes those), by budget. */
const fittedShared = new WeakMap<object, { budget: number; content: ClientEvent['content'] }>();

/** The event within `budget` bytes of JSON: as it is when it fits, otherwise cut as said above. */
export function withinBudget(event: ClientEvent, budget: number): ClientEvent {
  if (event.type === 'message.deleted') return event;
  // A content shared by many recipients (a channel event's) is judged once for all of them.
  const shared = Object.isFrozen(event.content) ? fittedShared.get(event.content) : undefined;
  if (shared?.budget === budget)
    return shared.content === event.content ? event : ({ ...event, content: shared.content } as ClientEvent);
  if (jsonBytesAtMost(event) <= budget) {
    if (Object.isFrozen(event.content)) fittedShared.set(event.content, { budget, content: event.content });
    return event;
  }
  const fitted = fit(event, budget);
  if (Object.isFrozen(event.content)) {
    // Shared on: the socket serialises a frozen content once for all its recipients.
    Object.freeze(fitted.content);
    fittedShared.set(event.content, { budget, content: fitted.content });
  }
  return fitted;
}

type MessagesContent = Exclude<ClientEvent, { type: 'message.deleted' }>['content'];

function fit(event: Exclude<ClientEvent, { type: 'message.deleted' }>, budget: number): ClientEvent {
  let total = jsonBytes(event);
  if (total <= budget) return event;
  // Copies of what is cut: the event's content may be shared with other recipients.
  const content: MessagesContent = {
    ...event.content,
    context: [...event.content.context],
    messages: event.content.messages.map((message) => ({ ...message })),
  };
  const over = () => total > budget;

  // 1. The ancestors, farthest first.
  while (over() && content.context.length > 0) {
    const dropped = content.context.shift()!;
    total -= jsonBytes(dropped) + (content.context.length > 0 ? 1 : 0);
    if (!content.context_truncated) {
      content.context_truncated = true;
      total += jsonBytes({ context_truncated: true }) - 1;
    }
  }

  // 2. The messages' contexts, the largest first.
  const withContext = () => content.messages.filter((m) => m.message_context !== undefined);
  if (over() && withContext().length > 0) {
    const sizes = new Map<EventMessage, number>(withContext().map((m) => [m, jsonBytes(m.message_context)]));
    for (const message of sizes.keys()) message.message_context = { ...message.message_context! };
    while (over() && sizes.size > 0) {
      const [largest, size] = [...sizes].reduce((a, b) => (b[1] > a[1] ? b : a));
      const context = largest.message_context!;
      const cut = cutOneEntry(context);
      if (cut) {
        const now = jsonBytes(cut);
        total += now - size;
        largest.message_context = cut;
        sizes.set(largest, now);
      } else {
        // Only the message itself is left: the context goes, to be read when wanted.
        delete largest.message_context;
        total -= size + '"message_context":,'.length;
        sizes.delete(largest);
      }
    }
    total = jsonBytes({ ...event, content });
  }

  // 3. The messages' content, the longest first, down to a common length.
  if (over()) cutContents(content.messages, total - budget);
  return { ...event, content } as ClientEvent;
}

/** The context with one entry fewer, in the read's order; null when only the message is left. */
function cutOneEntry(context: MessageContext): MessageContext | null {
  const entries = context.entries;
  if (entries.length <= 1) return null;
  // The message itself is the last entry; the thread's ancestors come after the starting context.
  const last = entries.length - 1;
  const firstAncestor = entries.findIndex((entry, i) => i < last && entry.part === 'thread');
  const drop = firstAncestor >= 0 ? firstAncestor : last - 1;
  return {
    ...context,
    entries: entries.filter((_, i) => i !== drop),
    truncated: true,
  };
}

/** Shortens the longest contents until `excess` bytes are gone, flagging each one cut. */
function cutContents(messages: EventMessage[], excess: number): void {
  const sizes = messages.map((m) => jsonBytes(m.content));
  // The common length L: the largest such that what the contents above it lose covers the excess.
  const sorted = [...sizes].sort((a, b) => b - a);
  let cap = 0;
  let lost = 0;
  for (let i = 0; i < sorted.length; i++) {
    const next = sorted[i + 1] ?? 0;
    const dropToNext = (sorted[i]! - next) * (i + 1);
    // Each cut message also gains its flag.
    const flags = (i + 1) * ',"content_truncated":true'.length;
    if (lost + dropToNext >= excess + flags) {
      cap = sorted[i]! - Math.ceil((excess + flags - lost) / (i + 1));
      break;
    }
    lost += dropToNext;
  }
  messages.forEach((message, i) => {
    if (sizes[i]! <= cap) return;
    message.content = prefixWithin(message.content, Math.max(cap, 2));
    message.content_truncated = true;
  });
}

/** The longest prefix of `text` whose JSON takes at most `bytes` bytes, never half a surrogate pair. */
function prefixWithin(text: string, bytes: number): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(text.slice(0, mid)) <= bytes) low = mid;
    else high = mid - 1;
  }
  const code = text.charCodeAt(low - 1);
  return code >= 0xd800 && code <= 0xdbff ? text.slice(0, low - 1) : text.slice(0, low);
}
