// POST /v1/auth/logout: ends the presented session if there is a valid one. Always succeeds, so
// logging out twice, or with an expired token, is not an error.
import type { Credentials } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import * as repo from './identity-repository.js';
import { callerFromSessionToken } from './sessions.js';

export async function logOut(ctx: AppContext, credentials: Credentials): Promise<{ logged_out: true }> {
  const token = credentials.bearer ?? credentials.cookie;
  if (token) {
    const caller = await callerFromSessionToken(ctx, token).catch(() => null);
    if (caller?.sessionId) await repo.revokeSession(ctx.db, caller.sessionId);
  }
  return { logged_out: true };
}
