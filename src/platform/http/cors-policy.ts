// CORS (the `cors` package): off unless SKEIN_CORS_ORIGINS lists origins. A listed origin's pages may
// call the REST API and GraphQL with a Bearer token or an API key; cookies stay first-party (no
// Access-Control-Allow-Credentials), so a listed site never acts with a visitor's Skein cookie, and
// the cookie Origin check (csrf.ts) needs no exception for it.
import cors from 'cors';
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';

/** The request headers the API reads, and the answer headers a client paces or correlates by. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Api-Key', 'Idempotency-Key', 'X-Correlation-Id'];
const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Correlation-Id',
  'Content-Disposition',
];

/** The CORS middleware for the API paths, or none when no origin is listed. */
export function corsPolicy(config: Pick<Config, 'corsOrigins'>): RequestHandler | undefined {
  if (config.corsOrigins.length === 0) return undefined;
  const allowed = new Set(config.corsOrigins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin.toLowerCase())),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
  });
}
