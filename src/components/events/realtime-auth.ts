// Who is on the other end of a socket. The credentials come from the upgrade request (the
// Authorization header, the `access_token` query parameter, x-api-key, or the svc_session cookie)
// or, for graphql-ws, from connection_init's payload; they are checked by the same authenticate()
// as every REST request, and kept current while the socket is open (live-credential.ts).
//
// Cookies and cross-site WebSocket hijacking: a browser sends cookies on a WebSocket handshake from
// any page, and no CORS check applies, so a cookie-only handshake is accepted only when its Origin
// is this service (PUBLIC_URL, or the Host it was addressed to). Browsers always send Origin on a
// handshake; a client without one is not a browser and cannot be tricked into using a cookie.
import type { IncomingMessage } from 'node:http';
import type { Credentials } from '../../platform/auth/caller.js';
import type { Config } from '../../platform/config.js';
import { AppError } from '../../platform/errors.js';
import { readCredentials } from '../../platform/http/credentials.js';
import { SESSION_COOKIE } from '../../platform/http/session-cookies.js';
import { databaseUnavailable } from '../../platform/neo4j/database-unavailable.js';
import { CLOSE_CODES, SLOW_CONSUMER } from './realtime-settings.js';

/** Why a socket is refused or ended: a close code, the contract's error code, and a sentence. */
export class SocketRefusal extends Error {
  constructor(
    readonly closeCode: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * Credentials of an upgrade request. Precedence as for REST (Bearer, then x-api-key, then the
 * cookie), with `?access_token=` standing in for the header that browsers cannot set.
 */
export function upgradeCredentials(req: IncomingMessage, url: URL): Credentials {
  const fromHeaders = readCredentials(req.headers, readCookie(req, SESSION_COOKIE));
  const queryToken = url.searchParams.get('access_token')?.trim() || undefined;
  return { ...fromHeaders, bearer: fromHeaders.bearer ?? queryToken };
}

/**
 * graphql-ws credentials: connection_init's `authorization` ("Bearer …") or `access_token` win over
 * the upgrade request's own (the client chose to send them with this connection).
 */
export function connectionParamsCredentials(
  params: Readonly<Record<string, unknown>> | undefined,
  fallback: Credentials,
): Credentials {
  const text = (name: string): string | undefined => {
    const value = params?.[name];
    return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined;
  };
  const authorization = text('authorization') ?? text('Authorization');
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? text('access_token');
  return bearer ? { bearer, apiKey: undefined, cookie: undefined } : fallback;
}

/** Refuses a cookie-only handshake from a page of another site (see the file comment). */
export function assertSameOriginCookie(req: IncomingMessage, credentials: Credentials, config: Config): void {
  if (credentials.bearer || credentials.apiKey || !credentials.cookie) return;
  const origin = req.headers.origin;
  if (origin === undefined) return;
  const host = req.headers.host ?? '';
  const allowed = new Set([new URL(config.publicUrl).origin, `http://${host}`, `https://${host}`]);
  if (!allowed.has(origin)) {
    throw new SocketRefusal(
      CLOSE_CODES.forbidden,
      'csrf_rejected',
      'A session cookie is accepted only from this service’s own pages; send the token instead.',
    );
  }
}

export function slowConsumer(): SocketRefusal {
  return new SocketRefusal(
    CLOSE_CODES.slowConsumer,
    SLOW_CONSUMER,
    'The connection fell too far behind; reconnect with since set to the last cursor received.',
  );
}

/** Maps any failure to how the socket ends; unexpected ones (1011) are logged by the caller. */
export function refusalFor(raised: unknown): SocketRefusal {
  if (raised instanceof SocketRefusal) return raised;
  const error = databaseUnavailable(raised) ?? raised;
  if (error instanceof AppError) {
    const closeCode =
      error.status === 401
        ? CLOSE_CODES.unauthenticated
        : error.status === 403
          ? CLOSE_CODES.forbidden
          : error.status === 429
            ? CLOSE_CODES.tooManySockets
            : error.status === 503
              ? CLOSE_CODES.tryAgainLater
              : error.status < 500
                ? CLOSE_CODES.badRequest
                : CLOSE_CODES.internalError;
    return new SocketRefusal(closeCode, error.code, error.message);
  }
  return new SocketRefusal(
    CLOSE_CODES.internalError,
    'internal_error',
    'The server failed; reconnect with since set to the last cursor received.',
  );
}

function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== name) continue;
    const raw = part.slice(separator + 1).trim();
    try {
      return decodeURIComponent(raw) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
