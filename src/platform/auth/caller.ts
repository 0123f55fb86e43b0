// Who is making a request, as resolved from its credentials.
import { AppError } from '../errors.js';
import type { Scope } from './scopes.js';
import { isApiKeyToken } from './secrets.js';

export interface Caller {
  uid: string;
  userTag: string;
  isManaged: boolean;
  /** Effective permissions of this request. */
  permissions: Scope[];
  /** This credential's restriction beyond the account grant (requested ∩ key cap); null for none. */
  ceiling: Scope[] | null;
  via: 'session' | 'api_key';
  /** Set when the request carries a session (Bearer or cookie). */
  sessionId: string | null;
  /** The presented session token, kept so act-as can back it up. */
  sessionToken: string | null;
  /** The API key behind the request or behind its session. */
  keyId: string | null;
  /** Set on delegated sessions (act-as, managed delegate): who is acting. */
  actingManagerUid: string | null;
}

/** Raw credentials found on a request, before they are checked. Bearer wins over x-api-key. */
export interface Credentials {
  bearer: string | undefined;
  apiKey: string | undefined;
  cookie: string | undefined;
}

/** The one credential a request is judged by, of the ones it carries. */
export type PresentedCredential = { kind: 'session'; token: string } | { kind: 'api_key'; key: string };

/**
 * Precedence: the Bearer token, then x-api-key, then the svc_session cookie. A Bearer token that is
 * an API key (`sk_…`, as OpenAI-style clients send theirs) is that key, exactly as in x-api-key.
 */
export function presentedCredential(credentials: Credentials): PresentedCredential | null {
  const { bearer, apiKey, cookie } = credentials;
  if (bearer)
    return isApiKeyToken(bearer) ? { kind: 'api_key', key: bearer } : { kind: 'session', token: bearer };
  if (apiKey) return { kind: 'api_key', key: apiKey };
  if (cookie) return { kind: 'session', token: cookie };
  return null;
}

export function requireCaller(caller: Caller | null): Caller {
  if (!caller) throw new AppError('not_authenticated', 'Authentication is required.');
  return caller;
}
