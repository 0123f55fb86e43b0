// Resolves the caller of a REST or GraphQL request. A stale svc_session cookie (expired, revoked)
// is cleared and the request goes on unauthenticated: the cookie is HttpOnly, so a browser page
// could not remove it itself and would be locked out of login. An invalid Bearer token or API key
// is still a 401, since the client chose to send it.
import type { Caller, Credentials } from '../auth/caller.js';
import { AppError } from '../errors.js';
import { isCookieOnly } from './credentials.js';
import type { SessionCookies } from './session-cookies.js';

export type Authenticator = (credentials: Credentials) => Promise<Caller | null>;

export async function authenticateRequest(
  authenticate: Authenticator,
  credentials: Credentials,
  cookies: SessionCookies,
): Promise<Caller | null> {
  try {
    return await authenticate(credentials);
  } catch (error) {
    if (error instanceof AppError && error.status === 401 && isCookieOnly(credentials)) {
      cookies.clearSession();
      return null;
    }
    throw error;
  }
}
