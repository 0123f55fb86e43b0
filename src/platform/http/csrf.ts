// CSRF stance, for REST and GraphQL alike: cookies are SameSite=Lax, and a write that carries a
// session cookie (svc_session or the act-as backup svc_mgr_session) and no other credential is
// refused when its Origin header names another site. Requests carrying a Bearer token or an
// x-api-key cannot be forged by a browser, so they are not checked. The check runs whatever the
// route's auth mode and whether or not the cookie is still valid: logout and act-as return act on
// the cookies without an authenticated caller.
import type { Request } from 'express';
import type { Credentials } from '../auth/caller.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { SessionCookies } from './session-cookies.js';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function assertSameOriginForCookieWrite(
  req: Request,
  credentials: Credentials,
  cookies: SessionCookies,
  config: Config,
): void {
  if (credentials.bearer || credentials.apiKey || !UNSAFE_METHODS.has(req.method)) return;
  if (cookies.session() === undefined && cookies.managerBackup() === undefined) return;
  const origin = req.get('origin');
  if (!origin) return;
  const allowed = new Set([new URL(config.publicUrl).origin, `${req.protocol}://${req.get('host') ?? ''}`]);
  if (!allowed.has(origin)) throw new AppError('csrf_rejected', 'Cross-site request refused.');
}
