// Shapes of the delivery log, secret rotation and redelivery (they validate input and feed OpenAPI).
import { z } from '../../platform/openapi.js';
import { NotificationEventOutput } from '../events/events.schemas.js';
import { pageQuery } from '../messages/messages.schemas.js';
import { Uid } from '../users/users.schemas.js';

export const DeliveriesParams = z.object({ uid: Uid });

export const DeliveriesQuery = z.object(pageQuery(20));
export type DeliveriesQuery = z.infer<typeof DeliveriesQuery>;

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int().openapi({ description: '1 for the first attempt.' }),
    at: z.string().openapi({ description: 'When the request was sent.' }),
    url: z.string(),
    status: z.number().int().nullable().openapi({ description: 'HTTP status; null when no answer came.' }),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
  })
  .openapi('DeliveryAttempt');

export const DeliveryOutput = z
  .object({
    webhook_id: z.string().openapi({ description: 'The webhook-id header, the same on every attempt.' }),
    type: z.enum(['sent', 'ping', 'added', 'channels']),
    url: z
      .string()
      .openapi({ description: 'The endpoint of the latest attempt (or of the first, to come).' }),
    state: z.enum(['pending', 'delivered', 'failed', 'disabled', 'dropped']).openapi({
      description:
        '`pending`: an attempt is due at `next_attempt_at` (or in flight); `delivered`: a 2xx answer came; ' +
        '`failed`: the retry schedule is used up; `disabled`: the endpoint answered 410, or is gone or turned off; ' +
        '`dropped`: by the time of an attempt the messages were deleted or no longer visible to the recipient, ' +
        'so nothing was sent (and nothing more will be).',
    }),
    attempts: z.number().int(),
    last_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    log: z.array(DeliveryAttempt).openapi({ description: 'The latest attempts (at most 20), oldest first.' }),
    event: NotificationEventOutput.nullable().openapi({
      description:
        'The body as it would be sent now, built from the messages as they are (each attempt builds it anew): ' +
        'null when nothing of it is left to show (deleted, or no longer visible to the recipient).',
    }),
  })
  .openapi('Delivery');
export type DeliveryOutput = z.infer<typeof DeliveryOutput>;

export const DeliveryPage = z
  .object({
    deliveries: z.array(DeliveryOutput),
    skip: z.number().int(),
    limit: z.number().int(),
    has_more: z.boolean(),
  })
  .openapi('DeliveryPage');
export type DeliveryPage = z.infer<typeof DeliveryPage>;

/** The webhook-id of a delivery: msg_<event id without dashes>_<recipient uid>. */
export const WebhookId = z
  .string()
  .regex(/^msg_[0-9a-f]{32}_[0-9a-f]{8}$/, 'must be a webhook_id from the delivery log')
  .openapi({ example: 'msg_0f8e2b6c1d2a4e7f9b3c5d6e7f8a9b0c_3f9a1c02' });

export const RedeliverParams = z.object({ uid: Uid, webhook_id: WebhookId });

/** Overlaps longer than a week would keep a replaced secret alive long after anyone needs it. */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;

export const RotateSecretBody = z
  .object({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_SECONDS)
      .default(DEFAULT_OVERLAP_SECONDS)
      .openapi({
        description:
          'How long the replaced secret keeps signing beside the new one: 0 to a week (604800), ' +
          'default a day (86400). 0 ends it at once.',
      }),
  })
  .openapi('RotateSecretRequest');
export type RotateSecretBody = z.infer<typeof RotateSecretBody>;

export const RotatedSecret = z
  .object({
    secret: z.string().openapi({
      description: 'The new `whsec_` signing secret. Shown only this once.',
      example: 'whsec_n9EphQYn6vpmfWvU+ibRiiRIp+JdgWA6bhyToiYuetM=',
    }),
    previous_expires_at: z.string().openapi({
      description:
        'Until when the replaced secret signs too (every delivery meanwhile carries both signatures); ' +
        'now when overlap_seconds was 0.',
    }),
  })
  .openapi('RotatedSecret');
export type RotatedSecret = z.infer<typeof RotatedSecret>;

export const EndpointOptionsBody = z
  .object({
    include_context: z.boolean().openapi({
      description:
        'true: each delivery of a `sent`, `ping`, `added` or `channels` event also carries, on every message of ' +
        '`content.messages`, `message_context`: its conversation context exactly as ' +
        '`GET /v1/messages/{message_id}/context` answers the user (default bounds), read when the delivery is ' +
        'sent. false (the default of every endpoint): deliveries stay as small as the spec’s payload.',
    }),
  })
  .strict()
  .openapi('EndpointOptionsRequest');
export type EndpointOptionsBody = z.infer<typeof EndpointOptionsBody>;

export const EndpointOptions = z
  .object({
    url: z.string().openapi({ description: 'The verified endpoint these options belong to.' }),
    include_context: z.boolean(),
    enabled: z.boolean().openapi({
      description: 'false while a 410 answer has turned the endpoint off (verify it again to resume).',
    }),
  })
  .openapi('EndpointOptions');
export type EndpointOptions = z.infer<typeof EndpointOptions>;
