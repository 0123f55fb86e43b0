// /v1 event routes:
//   POST /v1/messages/{message_id}/ping   notify users who can already see a message (type "ping")
//   GET  /v1/notifications                 the caller's notifications after a sequence number
// The WebSocket (/v1/ws/v1) and webhooks deliver the same notifications as they happen.
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import { NotificationPage, NotificationsQuery, PingRequest, PingResponse } from './events.schemas.js';
import { pingMessage } from './ping-message.js';
import { readNotifications } from './read-notifications.js';

const TAG = 'events';

export function mountEventRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'post',
    path: '/v1/messages/:message_id/ping',
    tag: TAG,
    summary: 'Ping users about a message',
    description:
      'Sends a `ping` notification (webhook, WebSocket, subscription) about this message to each named user who can ' +
      'already see it. Nothing else changes: no edge, no visibility. You must see the message yourself (404 ' +
      'otherwise, the same as a missing one). Users who cannot see it are skipped silently, and the answer lists ' +
      'all named users without saying who was skipped, so a ping cannot be used to find hidden (BCC) recipients. ' +
      'Pinging yourself does nothing. Needs `messages.write`.',
    auth: 'required',
    missingIsBadRequest: true,
    params: MessageIdParam,
    body: PingRequest,
    response: PingResponse,
    errors: {
      400: '`missing_field`: no recipients.',
      403: 'messages.write missing.',
      404: '`message_not_found`: missing or not visible to you; `user_not_found`: an unknown user.',
      422: 'Malformed id or recipients.',
    },
    handler: ({ caller, params, body }) => pingMessage(ctx, caller, params.message_id, body),
  });

  routes.add({
    method: 'get',
    path: '/v1/notifications',
    tag: TAG,
    summary: "The caller's notifications",
    description:
      'Your notifications with `seq` greater than `since` (default 0), oldest first, at most `limit` (1–100, default ' +
      '50). Every user has their own sequence 1, 2, 3, … in the order the changes committed; `latest_seq` is your ' +
      'newest. This is the outbox the WebSocket replays from with `?since=`; each entry is kept as it was when ' +
      'recorded. Needs `messages.read`.',
    auth: 'required',
    query: NotificationsQuery,
    response: NotificationPage,
    errors: { 403: 'messages.read missing.', 422: 'since or limit out of range.' },
    handler: ({ caller, query }) => readNotifications(ctx, caller, query),
  });
}
