// Webhook routes, each for the user itself and its managers (webhook-policy.ts):
//   GET  /v1/managed/users/:uid/deliveries                        the delivery log of the user's endpoint
//   POST /v1/managed/users/:uid/deliveries/:webhook_id/redeliver  a failed, disabled or dropped one again
//   POST /v1/managed/users/:uid/endpoint/secret/rotate            a new signing secret, the old one overlapping
//   PATCH /v1/managed/users/:uid/endpoint                         the endpoint's options (include_context)
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { listDeliveries } from './list-deliveries.js';
import { redeliverDelivery } from './redeliver-delivery.js';
import { rotateEndpointSecret } from './rotate-endpoint-secret.js';
import { setEndpointOptions } from './set-endpoint-options.js';
import * as schemas from './webhooks.schemas.js';

const WHO =
  'For the user itself and its managers (anyone else gets 403 `not_manager`, whether or not the uid exists); needs `messages.read`.';

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

  routes.add({
    method: 'post',
    path: '/v1/managed/users/:uid/deliveries/:webhook_id/redeliver',
    tag: 'webhooks',
    summary: 'Send a delivery from the log again',
    description:
      'Queues a `failed`, `disabled` or `dropped` delivery for one more attempt, at once, and answers it as the ' +
      'log shows it (`pending`). The request keeps its `webhook-id`, so a receiver that deduplicates by it ' +
      'treats it as the same message; it is signed with the secrets current when it is sent. The body is built ' +
      'then, from the messages as they are: if they were deleted or are no longer visible to the user, nothing is ' +
      'sent and the delivery is `dropped` again. It is one attempt: if it fails, the delivery is `failed` again ' +
      '(no new retry schedule); 410 turns the endpoint off as always. A `pending` delivery (queued already) or a ' +
      '`delivered` one, or one whose attempt is in progress, answers 409 `delivery_not_redeliverable`; without an ' +
      'endpoint that is verified and on (after a 410, verify it again first) 409 `endpoint_disabled`. ' +
      WHO,
    auth: 'required',
    params: schemas.RedeliverParams,
    response: schemas.DeliveryOutput,
    errors: {
      403: 'Not the user or one of its managers (not_manager), or messages.read is missing.',
      404: 'The user has no delivery with that webhook_id (delivery_not_found).',
      409: 'The delivery is pending, delivered or in progress (delivery_not_redeliverable), or the endpoint is off (endpoint_disabled).',
    },
    handler: ({ caller, params }) => redeliverDelivery(ctx, caller, params.uid, params.webhook_id),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/users/:uid/endpoint/secret/rotate',
    tag: 'webhooks',
    summary: 'Rotate the webhook signing secret',
    description:
      "Gives the user's endpoint a new `whsec_` signing secret, shown only in this answer. For `overlap_seconds` " +
      '(default a day, at most a week) the replaced secret keeps signing too: every delivery sent meanwhile, retries ' +
      'of older ones included, carries both signatures in `webhook-signature`, new first and space-separated ' +
      '(`v1,<new> v1,<old>`), as the Standard Webhooks scheme does for rotation, so a receiver verifies with either ' +
      'secret and can switch when it likes. After `previous_expires_at` only the new secret signs; with ' +
      '`overlap_seconds: 0` the old one stops at once. Only two secrets are kept: rotating again during an overlap ' +
      'ends the oldest at once, and verifying the endpoint again replaces both. ' +
      WHO,
    auth: 'required',
    params: schemas.DeliveriesParams,
    body: schemas.RotateSecretBody,
    response: schemas.RotatedSecret,
    errors: {
      403: 'Not the user or one of its managers (not_manager), or messages.read is missing.',
      404: 'The user has no verified endpoint (endpoint_not_found).',
      409: 'The endpoint was turned off by 410 (endpoint_disabled); verifying it again gives it a new secret.',
    },
    handler: ({ caller, params, body }) => rotateEndpointSecret(ctx, caller, params.uid, body),
  });

  routes.add({
    method: 'patch',
    path: '/v1/managed/users/:uid/endpoint',
    tag: 'webhooks',
    summary: 'Set the webhook endpoint’s options',
    description:
      'Options of the user’s verified endpoint; one today. `include_context: true` makes every delivery of a ' +
      '`sent`, `ping`, `added` or `channels` event carry, on each message of `content.messages`, ' +
      '`message_context`: the conversation context of that message exactly as ' +
      '`GET /v1/messages/{message_id}/context` answers the user itself with its default bounds (its starting ' +
      'context when it is a bot with a `context_origin_id`, then the reply ancestors it may see, then the ' +
      'message), read when each attempt is built, so it never shows what the user may not see. Off by default; ' +
      'the delivery log (`GET .../deliveries`) shows bodies without it. The option stays when the endpoint is ' +
      'verified again, also with another URL, and while a 410 has turned it off. ' +
      WHO,
    auth: 'required',
    params: schemas.DeliveriesParams,
    body: schemas.EndpointOptionsBody,
    response: schemas.EndpointOptions,
    errors: {
      403: 'Not the user or one of its managers (not_manager), or messages.read is missing.',
      404: 'The user has no verified endpoint (endpoint_not_found).',
    },
    handler: ({ caller, params, body }) => setEndpointOptions(ctx, caller, params.uid, body),
  });
}
