// POST /v1/auth/logout: ends every session the request presents: the Bearer token, the svc_session
// cookie and, while acting as a managed user, the manager's session kept in svc_mgr_session. The
// cookies are cleared either way, so a session left alive could no longer be reached from this
// browser yet would stay valid for its whole lifetime. Always succeeds, so logging out twice, or
// with an expired token, is not an error.
import type { Credentials } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import * as repo from './identity-repository.js';
import { callerFromSessionToken } from './sessions.js';

export async function logOut(
  ctx: AppContext,
  credentials: Credentials,
  managerBackupToken: string | undefined,
): Promise<{ logged_out: true }> {
  const tokens = new Set([credentials.bearer, credentials.cookie, managerBackupToken]);
  for (const token of tokens) {
    if (!token) continue;
    // Checking the whole token (secret included) means a session id alone cannot end a session.
    const caller = await callerFromSessionToken(ctx, token).catch(() => null);
    if (caller?.sessionId) await repo.revokeSession(ctx.db, caller.uid, caller.sessionId);
  }
  return { logged_out: true };
}
