// Shapes of the delivery log (they validate the query and feed OpenAPI).
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
