// Zod schemas of the events routes (they also feed OpenAPI): the notification shape, the caller's
// outbox page, and pings.
import { z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';
import { MessageContext } from '../context/context.schemas.js';
import { QueryBoolean, RecipientList } from '../messages/messages.schemas.js';

export const EventMessageOutput = z
  .object({
    id: z.string(),
    content: z.string(),
    parent_id: z.string().nullable(),
    author: z.object({ uid: z.string(), user_tag: z.string() }),
    message_context: MessageContext.optional().openapi({
      description:
        'Only when you asked for it (the endpoint option `include_context`, `/v1/ws/v1?include_context=true`, ' +
        'the subscription argument `include_context`), and only on `content.messages` of `sent`, `ping`, ' +
        '`added` and `channels` events: the conversation context of this message exactly as ' +
        '`GET /v1/messages/{message_id}/context` answers you with its default bounds (your starting context ' +
        'when you are a bot with a `context_origin_id`, the reply ancestors you may see from the root down, ' +
        'then the message; `truncated` when the bounds cut anything). Absent otherwise, and also when the ' +
        'event would pass its byte budget (`SKEIN_EVENT_MAX_BYTES`) even with only the message left in it: ' +
        'read it then.',
    }),
    content_truncated: z
      .literal(true)
      .optional()
      .openapi({
        description:
          'Present only when the event would pass its byte budget (`SKEIN_EVENT_MAX_BYTES`, 256 KiB by default) ' +
          'with every context cut: `content` was cut to fit, the longest contents first. ' +
          '`GET /v1/messages/{message_id}` has it whole.',
      }),
  })
  .openapi('EventMessage');

/** `content.context_truncated`, on the events whose content has a `context`. */
const ContextTruncated = z
  .literal(true)
  .optional()
  .openapi({
    description:
      'Present only when ancestors were left out of `context` (the farthest first) to keep the event within its ' +
      'byte budget (`SKEIN_EVENT_MAX_BYTES`, 256 KiB by default); `GET /v1/messages/{message_id}/context` has them.',
  });

/**
 * `include_context` on /v1/ws/v1: each new message of the frames carries `message_context`
 * (message-contexts.ts). The same QueryBoolean as every other flag: true, false, 1 or 0.
 */
export const IncludeContextFlag = QueryBoolean.default(false).openapi({
  type: 'boolean',
  default: false,
  description:
    'true (or 1): each message of `content.messages` of `sent`, `ping`, `added` and `channels` events carries ' +
    '`message_context`, its conversation context as `GET /v1/messages/{message_id}/context` answers you ' +
    '(default bounds). Off by default, when frames stay as small as they were.',
});

/** `live` on /v1/ws/v1: typing and stream frames too (decision 031). */
export const LiveFlag = QueryBoolean.default(false).openapi({
  type: 'boolean',
  default: false,
  description:
    'true (or 1): live frames too, typing.* and stream.* (POST /v1/typing, POST /v1/streams), for what you may ' +
    'see; never stored or replayed. Off by default.',
});

export const NotificationEventOutput = z
  .object({
    type: z.enum(['sent', 'ping', 'added', 'channels']),
    recipient_uid: z.string(),
    content: z.object({
      messages: z.array(EventMessageOutput),
      context: z.array(EventMessageOutput),
      context_truncated: ContextTruncated,
    }),
  })
  .openapi('NotificationEvent', {
    description:
      'The webhook payload, also the `event` of WebSocket notification frames: `sent` (a new message with you as a ' +
      'recipient), `ping`, `added` (you were added as a recipient of existing messages), `channels` (a message was ' +
      'added to a channel you belong to). `content.messages` lists only messages you can see, never your own ' +
      '(except in a ping); `content.context` holds up to 10 ancestors of the first message that you can see, root ' +
      'first; `parent_id` is null where you cannot see the parent. Built from the messages as they are when it is ' +
      'handed out: a message deleted or hidden from you since is left out, and an event left with nothing is not sent. ' +
      'No event passes `SKEIN_EVENT_MAX_BYTES` of JSON (256 KiB by default): beyond it, the ancestors of ' +
      '`content.context` go first (`context_truncated`), then entries of each `message_context` (its `truncated`), ' +
      'then contents (`content_truncated`).',
  });

export const MessageChangeOutput = z.enum([
  'tags',
  'subject',
  'public',
  'reply_order',
  'default_outgoing',
  'recipients',
  'channels',
  'reactions',
  'content',
]);

export const MessageUpdatedEventOutput = z
  .object({
    type: z.literal('message.updated'),
    recipient_uid: z.string(),
    content: z.object({
      messages: z.array(EventMessageOutput),
      context: z.array(EventMessageOutput),
      context_truncated: ContextTruncated,
      changes: z.array(MessageChangeOutput),
    }),
  })
  .openapi('MessageUpdatedEvent', {
    description:
      'Sockets and subscriptions only: messages you can see changed (`changes` says what: tags, subject, public, ' +
      'reply order, default branch, recipients, channels, reactions, content). Sent to their authors, recipients ' +
      'and channel members; fetch the message for its new state. Your own messages are included when someone ' +
      'else changed them.',
  });

export const MessageDeletedEventOutput = z
  .object({
    type: z.literal('message.deleted'),
    recipient_uid: z.string(),
    content: z.object({ message_ids: z.array(z.string()) }),
  })
  .openapi('MessageDeletedEvent', {
    description:
      'Sockets and subscriptions only: messages you could see (as author, recipient or channel member) were deleted.',
  });

export const ClientEventOutput = z.union([
  NotificationEventOutput,
  MessageUpdatedEventOutput,
  MessageDeletedEventOutput,
]);

export const NotificationOutput = z
  .object({
    id: z.string(),
    cursor: z.string(),
    created_at: z.string(),
    event: ClientEventOutput,
  })
  .openapi('Notification', {
    description:
      'One event as handed to you. `cursor` is opaque: store it and send it back as `since` to resume after this ' +
      'event (here, on /v1/ws/v1 and in the GraphQL subscription); never parse or compare it.',
  });

const Cursor = z.string().max(32).openapi({
  description: 'A cursor from a notification, a ready frame or a previous page.',
  example: 'c1.2s',
});

export const NotificationsQuery = z.object({
  since: Cursor.optional(),
  limit: queryInteger({ min: 1, max: 100 }).default(50),
});

export const NotificationPage = z
  .object({
    notifications: z.array(NotificationOutput),
    cursor: z.string(),
    has_more: z.boolean(),
  })
  .openapi('NotificationPage', {
    description:
      'Your events after `since`, oldest first. `cursor` resumes after the last event read (also when events that ' +
      'no longer show you anything were passed over); with `has_more` false it is the position now.',
  });

export const PingRequest = z
  // An empty list is the use case's 400 missing_field, not the schema's 422.
  .object({
    recipients: RecipientList.openapi({ minItems: 1, description: 'At least one (400 otherwise).' }),
  })
  .openapi('PingRequest', {
    description: 'Who to ping: user tags, "uid:<uid>" strings, or recipient objects ({user_tag | uid}).',
  });
export type PingRequest = z.infer<typeof PingRequest>;

export const PingResponse = z
  .object({ message_id: z.string(), pinged: z.array(z.string()) })
  .openapi('PingResponse', {
    description:
      'The users named in the request (each once). Only those who can already see the message are notified; ' +
      'the answer deliberately does not say which, since that would reveal hidden (BCC) recipients.',
  });
export type PingResponse = z.infer<typeof PingResponse>;
