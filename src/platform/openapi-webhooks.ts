// The `webhooks` section of the OpenAPI document: what Skein POSTs to a bot's verified endpoint.
// The payload schema comes from the events component (its zod schema), so the document shows what
// the dispatcher really sends; this module adds the Standard Webhooks headers, the verification
// request and an example of each event type.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import { z } from './openapi.js';

const SignatureHeaders = z.object({
  'webhook-id': z.string().openapi({
    description:
      'The delivery id, the same on every retry: drop a delivery whose id you have already handled.',
    example: 'msg_2f6c1e7a9b3d4c5e',
  }),
  'webhook-timestamp': z.string().openapi({
    description: 'Unix seconds when this attempt was signed; refuse ones far from your clock (replays).',
    example: '1795514400',
  }),
  'webhook-signature': z.string().openapi({
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the base64 ' +
      'part of your `whsec_` secret (Standard Webhooks; any official `standardwebhooks` library verifies it).',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

const message = (id: string, content: string, parent: string | null, uid: string, tag: string) => ({
  id,
  content,
  parent_id: parent,
  author: { uid, user_tag: tag },
});

const EXAMPLES: Record<string, { summary: string; description: string; example: unknown }> = {
  sent: {
    summary: 'A new message names you as a recipient',
    description:
      'Sent once per new message where you are a recipient with notify on. `content.messages` holds the new ' +
      'message; `content.context` up to 10 of its ancestors you can see, root first.',
    example: {
      type: 'sent',
      recipient_uid: '0551625a',
      content: {
        messages: [message('8d8d0a03', 'Noon works. @echobot can you book?', 'e7c55a1b', '3f9a1c02', 'ada')],
        context: [message('e7c55a1b', 'Lunch at noon?', null, '77aa01b2', 'bob')],
      },
    },
  },
  ping: {
    summary: 'Someone pinged you about a message you can see',
    description:
      'From POST /v1/messages/{message_id}/ping or an `@tag` mention; only when you can already see it.',
    example: {
      type: 'ping',
      recipient_uid: '0551625a',
      content: { messages: [message('e7c55a1b', 'Lunch at noon?', null, '77aa01b2', 'bob')], context: [] },
    },
  },
  added: {
    summary: 'You were added as a recipient of existing messages',
    description: 'From POST /v1/recipients/add with notify on.',
    example: {
      type: 'added',
      recipient_uid: '0551625a',
      content: { messages: [message('e7c55a1b', 'Lunch at noon?', null, '77aa01b2', 'bob')], context: [] },
    },
  },
  channels: {
    summary: 'A message was added to a channel you belong to',
    description: 'On posting into a channel, or PATCH /v1/messages/{message_id}/channels.',
    example: {
      type: 'channels',
      recipient_uid: '0551625a',
      content: {
        messages: [message('a4a52c61', 'Release at 15:00 UTC.', null, '3f9a1c02', 'ada')],
        context: [],
      },
    },
  },
};

const DELIVERY_RESPONSES = {
  '200': { description: 'Any 2xx: delivered. Answer fast (within 15 s) and do the work afterwards.' },
  '410': { description: 'Turns the endpoint off until it is verified again.' },
  '429': { description: 'Retried after Retry-After (also 503); other failures follow the retry schedule.' },
};

export function registerWebhookDocs(registry: OpenAPIRegistry, payload: ZodType): void {
  for (const [type, { summary, description, example }] of Object.entries(EXAMPLES)) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook${type[0]!.toUpperCase()}${type.slice(1)}`,
      summary,
      description:
        `${description} Delivered at least once, retried with the same webhook-id at once, 5 s, 5 min, 30 min, ` +
        '2 h, 5 h, 10 h, 14 h, 20 h and 24 h; a redirect counts as a failure. With the endpoint option ' +
        '`include_context` (PATCH /v1/managed/users/{uid}/endpoint) each message of `content.messages` also ' +
        'carries `message_context`, its conversation context as GET /v1/messages/{message_id}/context answers you.',
      tags: ['webhooks'],
      // Skein is the caller here: these requests carry a signature, not an API credential.
      security: [],
      request: {
        headers: SignatureHeaders,
        body: { required: true, content: { 'application/json': { schema: payload, example } } },
      },
      responses: DELIVERY_RESPONSES,
    });
  }
  registry.registerWebhook({
    method: 'post',
    path: 'endpoint-verification',
    operationId: 'webhookEndpointVerification',
    summary: 'Proof that you control the endpoint (no webhook-* headers)',
    description:
      'Sent by POST /v1/auth/contacts/endpoint/verify to the same URL as deliveries, without signature headers. ' +
      'Answer 2xx with the nonce: as the body, as a JSON string, or as `{"nonce": "..."}`. If this JSON POST is ' +
      'not echoed, Skein tries a text/plain POST of the nonce, then a GET with `?nonce=`.',
    tags: ['webhooks'],
    security: [],
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z.object({ nonce: z.string() }),
            example: { nonce: 'Jm1cT0rWb3qS8h2VtQ5yKp9xLz4eNa7D' },
          },
        },
      },
    },
    responses: {
      '200': {
        description: 'The echo.',
        content: { 'application/json': { schema: z.object({ nonce: z.string() }) } },
      },
      '400': { description: 'Anything but an echo fails the verification.' },
    },
  });
}
