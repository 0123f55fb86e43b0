// /v1 event routes:
//   POST /v1/messages/{message_id}/ping   notify users who can already see a message (type "ping")
//   GET  /v1/notifications                 the caller's events after a cursor
//   GET  /v1/ws/v1                         documents the WebSocket; a plain GET answers 426
// The WebSocket (realtime-server.ts, which takes the upgrade before Express sees it) and webhooks
// deliver the same notifications as they happen.
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { z } from '../../platform/openapi.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import {
  IncludeContextFlag,
  LiveFlag,
  NotificationPage,
  NotificationsQuery,
  PingRequest,
  PingResponse,
} from './events.schemas.js';
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
    accountLimit: (limits) => limits.pingsByAccount,
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
      'Your events after the cursor `since` (from the start of the retained log when absent), oldest first, at ' +
      'most `limit` (1–100, default 50): the same events, in the same order and with the same cursors, as the ' +
      'WebSocket replays with `?since=`. Each is built from the messages as they are now: a message deleted or ' +
      "hidden from you since is left out, and an event with nothing left is passed over. Resume with the answer's " +
      '`cursor`. Events are kept SKEIN_EVENT_RETENTION_DAYS days (default 7). Needs `messages.read`.',
    auth: 'required',
    query: NotificationsQuery,
    response: NotificationPage,
    errors: { 403: 'messages.read missing.', 422: 'since is not a cursor, or limit out of range.' },
    handler: ({ caller, query }) => readNotifications(ctx, caller, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/ws/v1',
    tag: TAG,
    summary: 'Live notifications (WebSocket)',
    description:
      'A WebSocket upgrade (RFC 6455); a plain GET answers 426. Credentials: `Authorization: Bearer <token>`, ' +
      '`?access_token=<token>`, `x-api-key`, or the `svc_session` cookie (cookies only from this origin); ' +
      '`realtime.connect` and `messages.read` are required (every frame carries message content, as ' +
      '`GET /v1/notifications` does), at connect and for as long as the socket is open. Server frames: first `{"type": "ready", "uid", "cursor"}` (the position ' +
      'now), then `{"type": "notification", "cursor", "event"}` for each event (`NotificationEvent`, ' +
      '`MessageUpdatedEvent` or `MessageDeletedEvent`), in order; send `{"type": "ping"}` to get ' +
      '`{"type": "pong"}`; anything else gets `{"type": "error", "code", "detail"}`. Connect with ' +
      '`?since=<cursor>` (the last cursor you received) to first replay every event after it, with no gap and no ' +
      'repeat before live ones, also across server restarts. With `?include_context=true` each message of ' +
      '`content.messages` of `sent`, `ping`, `added` and `channels` events also carries `message_context`, its ' +
      'conversation context as `GET /v1/messages/{message_id}/context` answers you (default bounds); off by ' +
      'default, when nothing of it is read. With `?live=true` the socket also gets live frames (decision 031; never ' +
      'in the event log, never replayed by `since`): `typing.started` / `typing.stopped` (POST /v1/typing) and ' +
      '`stream.opened` / `stream.appended` / `stream.stop_requested` / `stream.ended` (POST /v1/streams), for what ' +
      'you may see; it first gets the typing signals active for you and the open streams with their text so far. ' +
      'A client may also send `{"type": "typing", "id"?, …}` with the body of POST /v1/typing: answered ' +
      '`{"type": "typing.ok", "id", "op", "expires_at", "renew_in_ms"}` or an error frame carrying the same `id`. ' +
      'Refusals complete the upgrade, send an error frame ' +
      'and close with 4401 (not authenticated, or the credential ended), 4403 (`insufficient_scope`: no ' +
      'realtime.connect or messages.read; `api_access_required`; `csrf_rejected`: a cookie from another site), ' +
      '4400 (bad since, include_context or live), 4429 (you already hold ' +
      'SKEIN_WS_MAX_SOCKETS_PER_USER sockets and subscriptions, default 20, on all instances together when they ' +
      'share Redis); 4008 closes a slow consumer (reconnect with since; no single event is larger than ' +
      'SKEIN_EVENT_MAX_BYTES, so resuming always makes progress), 1013 a database outage, 1001 a shutdown. A logout, a session or key revocation, a password ' +
      'change, a bot’s deactivation or deletion, a manager’s removal or an administrator’s change of scopes or ' +
      'API access closes the sockets opened with the credential it ends or narrows at once (4401 or 4403), on ' +
      'every instance, and no frame is sent on them after that change answered. The server pings every SKEIN_WS_HEARTBEAT_SECONDS ' +
      '(default 30) and cuts sockets that do not answer. GraphQL subscriptions (`notifications(since, include_context)`) run over ' +
      'graphql-ws at /graphql with the same rules.',
    auth: 'none',
    query: z.object({ include_context: IncludeContextFlag, live: LiveFlag }),
    response: z.object({}),
    errors: {
      422: 'include_context or live is not true, false, 1 or 0 (the socket closes with 4400 instead).',
      426: '`upgrade_required`: this path only speaks WebSocket.',
    },
    handler: () => {
      throw new AppError('upgrade_required', 'This path only accepts WebSocket upgrades.', {
        headers: { Upgrade: 'websocket', Connection: 'Upgrade' },
      });
    },
  });
}
