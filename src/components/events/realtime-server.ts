// The WebSocket endpoints of the HTTP server, routed from its 'upgrade' event:
//   GET /v1/ws/v1   the notification socket (websocket-notifications.ts)
//   GET /graphql    GraphQL subscriptions over graphql-ws (realtime-graphql.ts)
// Any other upgrade is answered 404 and the socket destroyed.
//
// /v1/ws/v1 authenticates before accepting, but refuses after accepting: it completes the upgrade,
// sends an error frame and closes with 4401/4403/4400 and the error code as reason. A browser's
// WebSocket API cannot read the status of a refused handshake (it sees only 1006), so a close code
// is the one refusal every client can tell apart from a network failure.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GraphQLSchema } from 'graphql';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AppContext } from '../../platform/context.js';
import { clientAddress } from '../../platform/http/client-address.js';
import { LiveCredential } from './live-credential.js';
import { assertSameOriginCookie, refusalFor, upgradeCredentials } from './realtime-auth.js';
import { createGraphQLSocketServer } from './realtime-graphql.js';
import { CLOSE_CODES, realtimeSettings } from './realtime-settings.js';
import {
  endNotificationSocket,
  parseFlag,
  parseSince,
  serveNotificationSocket,
  type NotificationSocketOptions,
} from './websocket-notifications.js';

export const NOTIFICATIONS_PATH = '/v1/ws/v1';
export const GRAPHQL_PATH = '/graphql';

/** Clients send only pings on /v1/ws/v1; anything larger is a misbehaving client (closed with 1009). */
const MAX_CLIENT_FRAME = 4 * 1024;
/** How long shutdown waits for clients to answer the close frame before cutting them off. */
const SHUTDOWN_GRACE_MS = 1000;

export interface RealtimeServer {
  close(): Promise<void>;
}

type Admission =
  | { live: LiveCredential; since: number | null; options: NotificationSocketOptions; address: string }
  | { refusal: unknown };

export function attachRealtime(server: Server, ctx: AppContext, schema: GraphQLSchema): RealtimeServer {
  const notifications = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME });
  const graphql = createGraphQLSocketServer(ctx, schema);
  let closing = false;

  const admit = async (req: IncomingMessage, url: URL): Promise<Admission> => {
    try {
      const since = parseSince(url);
      const options = { includeContext: parseFlag(url, 'include_context'), live: parseFlag(url, 'live') };
      const credentials = upgradeCredentials(req, url);
      assertSameOriginCookie(req, credentials, ctx.config);
      const address = clientAddress(req, ctx.config.trustProxy);
      return { live: await LiveCredential.open(ctx, credentials), since, options, address };
    } catch (error) {
      return { refusal: error };
    }
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (closing) return reject(socket, 503, 'Service Unavailable');
    if (url.pathname === GRAPHQL_PATH) {
      graphql.wss.handleUpgrade(req, socket, head, (ws) => graphql.wss.emit('connection', ws, req));
      return;
    }
    if (url.pathname !== NOTIFICATIONS_PATH) return reject(socket, 404, 'Not Found');
    // The socket may fail while the credentials are checked; without a listener that would crash.
    const onSocketError = () => socket.destroy();
    socket.on('error', onSocketError);
    void admit(req, url).then((admission) => {
      socket.off('error', onSocketError);
      if (socket.destroyed) {
        if ('live' in admission) admission.live.close();
        return;
      }
      notifications.handleUpgrade(req, socket, head, (ws) => {
        if ('refusal' in admission) {
          const refusal = refusalFor(admission.refusal);
          if (refusal.closeCode === CLOSE_CODES.internalError) {
            ctx.log.error({ err: admission.refusal }, 'notification socket admission failed');
          }
          endNotificationSocket(ws, refusal);
          return;
        }
        serveNotificationSocket(
          ws,
          ctx,
          admission.live,
          admission.since,
          admission.address,
          realtimeSettings(ctx.config),
          admission.options,
        );
      });
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    close: async () => {
      closing = true;
      server.off('upgrade', onUpgrade);
      const open = [...notifications.clients];
      for (const ws of open) ws.close(CLOSE_CODES.goingAway, 'server_shutdown');
      await Promise.all([
        graphql.close(),
        closedWithin([...open, ...graphql.wss.clients], SHUTDOWN_GRACE_MS),
      ]);
      await new Promise<void>((resolve) => notifications.close(() => resolve()));
    },
  };
}

function reject(socket: Duplex, status: number, text: string): void {
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Waits for the sockets to close, cutting off those still open after `ms`. */
async function closedWithin(sockets: WebSocket[], ms: number): Promise<void> {
  const pending = sockets.filter((ws) => ws.readyState !== ws.CLOSED);
  if (pending.length === 0) return;
  const timer = setTimeout(() => pending.forEach((ws) => ws.terminate()), ms);
  await Promise.all(pending.map((ws) => new Promise((resolve) => ws.once('close', resolve))));
  clearTimeout(timer);
}
