// Webhook routes:
//   GET /v1/managed/users/:uid/deliveries   the delivery log of a user's webhook endpoint
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { listDeliveries } from './list-deliveries.js';
import * as schemas from './webhooks.schemas.js';

export function mountWebhookRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/managed/users/:uid/deliveries',
    tag: 'webhooks',
    summary: 'Webhook delivery log of a user',
    description:
      'Newest first. Readable by the user itself and by its managers (who may act as it anyway, so the ' +
      'payloads, which hold only messages the user can see, are included); anyone else gets 403 `not_manager`, ' +
      'whether or not the uid exists. Needs `messages.read`.\n\n' +
      'Delivery: when a user has a verified endpoint contact, each notification is POSTed to it as JSON with the ' +
      'Standard Webhooks headers `webhook-id` (the same on every attempt of a delivery), `webhook-timestamp` and ' +
      '`webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the `whsec_` secret). ' +
      'At-least-once: receivers should deduplicate by `webhook-id`. Attempts: at once, then after 5 s, 5 min, ' +
      '30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±10% jitter), then `failed`. A 2xx answer is success; ' +
      'a redirect is a failure and is not followed; 410 Gone turns the endpoint off (its other pending deliveries ' +
      'become `disabled`, and none are created until it is verified again); on 429 and 503 a `Retry-After` ' +
      '(seconds or HTTP date, at most 24 h) later than the next step of the schedule is waited for, an earlier ' +
      'one is not; the time-out is 15 s. Each attempt goes to the endpoint currently verified for the user, ' +
      'signed with its current secret.',
    auth: 'required',
    params: schemas.DeliveriesParams,
    query: schemas.DeliveriesQuery,
    response: schemas.DeliveryPage,
    errors: { 403: 'Not the user or one of its managers, or messages.read is missing.' },
    handler: ({ caller, params, query }) => listDeliveries(ctx, caller, params.uid, query),
  });
}
