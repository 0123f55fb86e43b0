// Heartbeats for every socket of both transports: the server pings; a socket that has not answered
// the previous ping by the next one is cut (its peer is gone or stuck, and a stuck reader would
// otherwise hold buffers forever). Each beat also re-checks the credentials, so a session or key
// that expired ends within one interval (changes a write makes end it at once: live-credential.ts).
// Each socket has its own
// timer, started when it connects, so the re-checks of many sockets spread over the interval
// instead of reaching the database together.
import type { WebSocket } from 'ws';
import type { Logger } from '../../platform/logger.js';
import { refusalFor, type SocketRefusal } from './realtime-auth.js';
import { isServerTrouble } from './realtime-settings.js';

export interface HeartbeatOptions {
  intervalMs: number;
  /** Re-checks the socket's right to stay open; throws (a SocketRefusal or an AppError) when it has none. */
  recheck: () => Promise<void>;
  /** Ends the socket the transport's way. */
  end: (refusal: SocketRefusal) => void;
  log: Logger;
}

export function startHeartbeat(ws: WebSocket, options: HeartbeatOptions): void {
  let alive = true;
  let checking = false;
  const answered = () => {
    alive = true;
  };
  ws.on('pong', answered);
  // Any frame from the client shows it is reading and writing.
  ws.on('message', answered);
  const timer = setInterval(() => {
    if (!alive) {
      ws.terminate();
      return;
    }
    alive = false;
    ws.ping();
    if (checking) return;
    checking = true;
    options
      .recheck()
      .catch((error: unknown) => {
        const refusal = refusalFor(error);
        if (isServerTrouble(refusal.closeCode)) {
          // The database is down, not the session: keep the socket; the next beat checks again.
          options.log.warn({ err: error }, 'socket credential re-check failed');
          return;
        }
        options.end(refusal);
      })
      .finally(() => {
        checking = false;
      });
  }, options.intervalMs);
  timer.unref();
  ws.once('close', () => clearInterval(timer));
}
