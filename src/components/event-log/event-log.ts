// The event log's vocabulary: what a change records, what the sequencer numbers, and the opaque
// cursor clients hold. Every writer records its events through record-events.ts in its own write
// transaction; nothing here knows how events are delivered (components/events, components/webhooks).
//
// An event references messages; it never copies them. What a recipient is shown is built from the
// graph when the event is handed out, with the visibility rule, so a message deleted or hidden since
// is never handed out (docs/decisions/010-event-log.md).
import { validationError } from '../../platform/errors.js';

/**
 * Why someone is told. The first four are the spec's webhook types; `message.updated` and
 * `message.deleted` go to sockets and subscriptions; `membership` is internal (it tells the
 * instances which channel streams a connected user now follows) and is never handed to a client.
 */
export type EventType =
  'sent' | 'ping' | 'added' | 'channels' | 'message.updated' | 'message.deleted' | 'membership';

/** The types a client can be handed (sockets, subscriptions, GET /v1/notifications). */
export const CLIENT_EVENT_TYPES = [
  'sent',
  'ping',
  'added',
  'channels',
  'message.updated',
  'message.deleted',
] as const;
export type ClientEventType = (typeof CLIENT_EVENT_TYPES)[number];

/** The spec's four webhook types; webhooks get only these. */
export const WEBHOOK_EVENT_TYPES = ['sent', 'ping', 'added', 'channels'] as const;

/** What changed in a `message.updated` event. */
export type MessageChange =
  | 'tags'
  | 'subject'
  | 'public'
  | 'reply_order'
  | 'default_outgoing'
  | 'recipients'
  | 'channels'
  | 'reactions'
  | 'content';

/**
 * One change as a writer records it. Exactly one stream: a user (`uid`) or a channel
 * (`channel_id`, heard by its members). `skip_uids` are members a channel event must not reach
 * (the actor, and those already told by a direct event of the same change).
 */
export interface NewEvent {
  type: EventType;
  uid?: string;
  channel_id?: string;
  message_ids: string[];
  skip_uids?: string[];
  changes?: MessageChange[];
  /** For `membership`: the channel the user joined or left. */
  membership?: { channel_id: string; joined: boolean };
}

/** An event as stored and numbered: `seq` is its place in the one global order. */
export interface LoggedEvent {
  id: string;
  /** Shared by the events one change recorded. */
  change_id: string;
  seq: number;
  type: EventType;
  uid: string | null;
  channel_id: string | null;
  message_ids: string[];
  skip_uids: string[];
  actor_uid: string;
  created_at: string;
  changes: MessageChange[];
  membership: { channel_id: string; joined: boolean } | null;
}

/** An event as its writer recorded it, committed but not numbered yet (what a commit notice tells). */
export type CommittedEvent = Pick<LoggedEvent, 'id' | 'type' | 'channel_id' | 'message_ids'>;

/** A sequencer round: the events numbered from + 1 to `to`, in order. Rounds are contiguous. */
export interface SequencedRound {
  from: number;
  to: number;
  events: LoggedEvent[];
}

// Cursors are opaque to clients (contract "Events"); inside they are a position in the global
// order. The prefix names the format, so it can change without old cursors being misread.
const CURSOR_PREFIX = 'c1.';
const CURSOR_PATTERN = /^c1\.[0-9a-z]{1,11}$/;

export function encodeCursor(seq: number): string {
  return CURSOR_PREFIX + seq.toString(36);
}

/** A client's cursor as a position; a malformed one is a 422 naming the parameter. */
export function decodeCursor(cursor: string, loc: (string | number)[] = ['query', 'since']): number {
  if (!CURSOR_PATTERN.test(cursor)) {
    throw validationError([{ loc, msg: 'must be a cursor this service handed out', type: 'value_error' }]);
  }
  return parseInt(cursor.slice(CURSOR_PREFIX.length), 36);
}
