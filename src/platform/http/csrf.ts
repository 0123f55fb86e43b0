// CSRF stance, for REST and GraphQL alike: cookies are SameSite=Lax, and a write authenticated by
// the cookie alone is refused when its Origin header names another site. Requests carrying a Bearer
// token or an x-api-key cannot be forged by a browser, so they are not checked.
import type { Request } from 'express';
import type { Credentials } from '../auth/caller.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { isCookieOnly } from './credentials.js';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function assertSameOriginForCookieWrite(req: Request, credentials: Credentials, config: Config): void {
  if (!isCookieOnly(credentials) || !UNSAFE_METHODS.has(req.method)) return;
  const origin = req.get('origin');
  if (!origin) return;
  const allowed = new Set([new URL(config.publicUrl).origin, `${req.protocol}://${req.get('host') ?? ''}`]);
  if (!allowed.has(origin)) throw new AppError('csrf_rejected', 'Cross-site request refused.');
}
