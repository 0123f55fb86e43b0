// The one shape of an event, shared by the outbox, webhook bodies, WebSocket frames and GraphQL
// subscriptions (spec "Events": type, recipient_uid, content.messages[], content.context[]).

/** Why a user is told: a new message for them, a ping, an added recipient, a channel inclusion. */
export type EventType = 'sent' | 'ping' | 'added' | 'channels';
export const EVENT_TYPES: readonly EventType[] = ['sent', 'ping', 'added', 'channels'];

/** A message as an event shows it; parent_id is null when the recipient cannot see the parent. */
export interface EventMessage {
  id: string;
  content: string;
  parent_id: string | null;
  author: { uid: string; user_tag: string };
}

/** The webhook payload, exactly as the spec gives it. */
export interface NotificationEvent {
  type: EventType;
  recipient_uid: string;
  content: {
    messages: EventMessage[];
    /** Ancestors of the first message that the recipient can see, root first (may be empty). */
    context: EventMessage[];
  };
}

/** One outbox row: a recorded event for one user, numbered by that user's own sequence. */
export interface StoredNotification {
  /** Unique, stable id; webhook deliveries use it as their webhook-id. */
  id: string;
  uid: string;
  /** 1, 2, 3, … per user, in commit order; WebSocket clients resume with ?since=<seq>. */
  seq: number;
  created_at: string;
  event: NotificationEvent;
}

/** What a use case asks the outbox to record: who, why, and which messages (payload built in the tx). */
export interface PlannedNotification {
  uid: string;
  type: EventType;
  message_ids: string[];
}
