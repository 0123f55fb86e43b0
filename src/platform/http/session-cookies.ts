// The session cookies, read and written in one place for REST and GraphQL alike:
// `svc_session` holds the session token, `svc_mgr_session` a manager's token during act-as.
import type { Request, Response } from 'express';
import type { Config } from '../config.js';

export const SESSION_COOKIE = 'svc_session';
export const MANAGER_COOKIE = 'svc_mgr_session';

export interface SessionCookies {
  session(): string | undefined;
  managerBackup(): string | undefined;
  setSession(token: string, maxAgeSeconds: number): void;
  setManagerBackup(token: string, maxAgeSeconds: number): void;
  clearSession(): void;
  clearManagerBackup(): void;
}

export function sessionCookies(req: Request, res: Response, config: Config): SessionCookies {
  const options = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: config.secureCookies };
  const read = (name: string): string | undefined => {
    const cookies = req.cookies as Record<string, unknown> | undefined;
    const value = cookies?.[name];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  return {
    session: () => read(SESSION_COOKIE),
    managerBackup: () => read(MANAGER_COOKIE),
    setSession: (token, maxAge) => res.cookie(SESSION_COOKIE, token, { ...options, maxAge: maxAge * 1000 }),
    setManagerBackup: (token, maxAge) =>
      res.cookie(MANAGER_COOKIE, token, { ...options, maxAge: maxAge * 1000 }),
    clearSession: () => res.clearCookie(SESSION_COOKIE, options),
    clearManagerBackup: () => res.clearCookie(MANAGER_COOKIE, options),
  };
}
