// Zod schemas of the events routes (they also feed OpenAPI): the notification shape, the caller's
// outbox page, and pings.
import { z } from '../../platform/openapi.js';
import { RecipientList } from '../messages/messages.schemas.js';

export const EventMessageOutput = z
  .object({
    id: z.string(),
    content: z.string(),
    parent_id: z.string().nullable(),
    author: z.object({ uid: z.string(), user_tag: z.string() }),
  })
  .openapi('EventMessage');

export const NotificationEventOutput = z
  .object({
    type: z.enum(['sent', 'ping', 'added', 'channels']),
    recipient_uid: z.string(),
    content: z.object({ messages: z.array(EventMessageOutput), context: z.array(EventMessageOutput) }),
  })
  .openapi('NotificationEvent', {
    description:
      'The webhook payload, also the `event` of WebSocket notification frames: `sent` (a new message with you as a ' +
      'recipient), `ping`, `added` (you were added as a recipient of existing messages), `channels` (a message was ' +
      'added to a channel you belong to). `content.messages` lists only messages you can see, never your own ' +
      '(except in a ping); `content.context` holds up to 10 ancestors of the first message that you can see, root ' +
      'first; `parent_id` is null where you cannot see the parent.',
  });

export const NotificationOutput = z
  .object({
    id: z.string(),
    seq: z.number().int(),
    created_at: z.string(),
    event: NotificationEventOutput,
  })
  .openapi('Notification');

export const NotificationsQuery = z.object({
  since: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

export const NotificationPage = z
  .object({
    notifications: z.array(NotificationOutput),
    latest_seq: z.number().int(),
    has_more: z.boolean(),
  })
  .openapi('NotificationPage');

export const PingRequest = z.object({ recipients: RecipientList }).openapi('PingRequest', {
  description: 'Who to ping: user tags, "uid:<uid>" strings, or recipient objects ({user_tag | uid}).',
});
export type PingRequest = z.infer<typeof PingRequest>;

export const PingResponse = z
  .object({ message_id: z.string(), recipient_uids: z.array(z.string()) })
  .openapi('PingResponse', {
    description:
      'The users named in the request (each once). Only those who can already see the message are notified; ' +
      'the answer deliberately does not say which, since that would reveal hidden (BCC) recipients.',
  });
export type PingResponse = z.infer<typeof PingResponse>;
