// Every operation that signs someone in answers a TokenResponse and sets the svc_session cookie;
// REST and GraphQL both go through here so the two never differ.
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
