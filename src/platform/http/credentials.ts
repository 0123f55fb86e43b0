// Finds the credentials a request carries. Precedence: Bearer, then x-api-key, then the cookie.
import type { Credentials } from '../auth/caller.js';

export function readCredentials(
  headers: Record<string, string | string[] | undefined>,
  cookie: string | undefined,
): Credentials {
  const authorization = single(headers.authorization);
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return { bearer, apiKey: single(headers['x-api-key'])?.trim() || undefined, cookie };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function isCookieOnly(credentials: Credentials): boolean {
  return !credentials.bearer && !credentials.apiKey && Boolean(credentials.cookie);
}
