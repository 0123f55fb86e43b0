// Tunables of live delivery, and the close codes and frames both socket transports speak.
import type { Config } from '../../platform/config.js';

export type RealtimeSettings = Config['realtime'];

/** The settings in force, read per connection so that a test server can be tuned after it starts. */
export function realtimeSettings(config: Config): RealtimeSettings {
  return config.realtime;
}

/**
 * Close codes. 4000–4999 are the application's own (RFC 6455 §7.4.2); 4401 and 4403 mirror the
 * HTTP statuses, as graphql-ws does. The close reason is the error code of the contract.
 */
export const CLOSE_CODES = {
  /** The client sent something unusable in the handshake (a bad `since`). */
  badRequest: 4400,
  /** No credentials, or invalid, revoked or expired ones (also when found at a heartbeat). */
  unauthenticated: 4401,
  /**
   * Authenticated without realtime.connect or messages.read, without API access, or a cookie sent
   * from another site (decision 025).
   */
  forbidden: 4403,
  /** Too far behind: reconnect with ?since=<last cursor received>. */
  slowConsumer: 4008,
  /**
   * The user already holds SKEIN_WS_MAX_SOCKETS_PER_USER sockets and subscriptions (on all instances
   * sharing Redis, feed-ceilings.ts), or the address SKEIN_WS_MAX_SOCKETS_PER_ADDRESS here.
   */
  tooManySockets: 4429,
  /** The server is shutting down; reconnect (elsewhere) with since. */
  goingAway: 1001,
  /** The database is unreachable for now; reconnect shortly with since. */
  tryAgainLater: 1013,
  /** The server failed; reconnect with since. */
  internalError: 1011,
} as const;

/** Close codes that say the server is in trouble, not the client or its credentials. */
export function isServerTrouble(closeCode: number): boolean {
  return closeCode === CLOSE_CODES.internalError || closeCode === CLOSE_CODES.tryAgainLater;
}

/** The error code (also the close reason) of a slow consumer. */
export const SLOW_CONSUMER = 'slow_consumer';

/** Server frames of /v1/ws/v1 (contract "Events"), plus the error frame. */
export type ServerFrame =
  | { type: 'ready'; uid: string; cursor: string }
  | { type: 'notification'; cursor: string; event: unknown }
  | { type: 'pong' }
  | { type: 'error'; code: string; detail: string };
