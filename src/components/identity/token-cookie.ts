// Every operation that signs someone in answers a TokenResponse and sets the svc_session cookie;
// REST and GraphQL both go through here so the two never differ.
import { parseSessionToken } from '../../platform/auth/secrets.js';
import type { SessionCookies } from '../../platform/http/session-cookies.js';
import type { TokenResponse } from './identity.schemas.js';

interface IssuedToken {
  access_token: string;
  expires_in: number;
  expires_at: string;
}

export function deliverToken(cookies: SessionCookies, token: IssuedToken): TokenResponse {
  cookies.setSession(token.access_token, token.expires_in);
  return toTokenResponse(token);
}

/** The TokenResponse alone, for delegation to scripts, which must not replace the caller's cookie. */
export function toTokenResponse(token: IssuedToken): TokenResponse {
  return {
    access_token: token.access_token,
    token_type: 'Bearer',
    expires_in: token.expires_in,
    expires_at: token.expires_at,
  };
}

/**
 * After sessions were ended on request (DELETE /v1/auth/sessions/{id}, revoke-others): a session
 * cookie that holds one of them is cleared, as logout clears it, since it could only fail from now on.
 * A cookie holding another session stays, even when a Bearer token made the request.
 */
export function clearEndedSessionCookies(cookies: SessionCookies, endedSessionIds: readonly string[]): void {
  const ended = (token: string | undefined) => {
    const id = token === undefined ? undefined : parseSessionToken(token)?.id;
    return id !== undefined && endedSessionIds.includes(id);
  };
  if (ended(cookies.session())) cookies.clearSession();
  if (ended(cookies.managerBackup())) cookies.clearManagerBackup();
}
