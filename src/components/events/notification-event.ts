// The shapes of what recipients are handed, shared by webhook bodies, WebSocket frames, GraphQL
// subscriptions and GET /v1/notifications (spec "Events": type, recipient_uid, content.messages[],
// content.context[]). Built from the graph when handed out (event-payloads.ts), never stored.
import type { ClientEventType, MessageChange } from '../event-log/event-log.js';
import type { MessageContext } from '../context/context.schemas.js';

/** A message as an event shows it; parent_id is null when the recipient cannot see the parent. */
export interface EventMessage {
  id: string;
  content: string;
  parent_id: string | null;
  author: { uid: string; user_tag: string };
  /**
   * The message's conversation context as GET /v1/messages/{id}/context answers the recipient: only
   * on `content.messages` of sent, ping, added and channels events, and only for a recipient that
   * asked for it (message-contexts.ts); absent otherwise.
   */
  message_context?: MessageContext;
  /** Present (true) only when the content was cut to fit the event's byte budget (event-budget.ts). */
  content_truncated?: true;
}

/** The spec's webhook payload (sent, ping, added, channels). */
export interface NotificationEvent {
  type: 'sent' | 'ping' | 'added' | 'channels';
  recipient_uid: string;
  content: {
    messages: EventMessage[];
    /** Ancestors of the first message that the recipient can see, root first (may be empty). */
    context: EventMessage[];
    /**
     * Present (true) only when ancestors were left out of `context` to fit the event's byte budget,
     * the farthest first (event-budget.ts); the context read has them all.
     */
    context_truncated?: true;
  };
}

/** Messages the recipient can see changed (sockets and subscriptions only). */
export interface MessageUpdatedEvent {
  type: 'message.updated';
  recipient_uid: string;
  content: {
    messages: EventMessage[];
    context: EventMessage[];
    context_truncated?: true;
    changes: MessageChange[];
  };
}

/** Messages the recipient could see were deleted (sockets and subscriptions only). */
export interface MessageDeletedEvent {
  type: 'message.deleted';
  recipient_uid: string;
  content: { message_ids: string[] };
}

export type ClientEvent = NotificationEvent | MessageUpdatedEvent | MessageDeletedEvent;

/** One event as handed to one client, with the cursor to resume after it. */
export interface DeliveredEvent {
  /** The event's id: the same for every recipient and every delivery of it. */
  id: string;
  cursor: string;
  created_at: string;
  event: ClientEvent;
}

export type { ClientEventType };
