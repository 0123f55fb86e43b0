// The caller's own sessions: list the live ones, end one, end every one but the session making the
// request. A session belongs to one user, so a delegated session (a manager acting as a bot) sees
// and ends the bot's sessions, and an API-key request sees the user's sessions with none of them
// current (it has no session; ending "the others" then ends them all). Nothing listed authenticates:
// the id is the public half of a token, and the secret is only ever stored as a hash.
// Ending a session is an identity/ write, after which every instance's session cache is emptied
// before the answer goes out (session-cache.ts), so the ended session fails at once everywhere; a
// delegated session minted through it dies with it (sessions.ts, managerHolds).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import * as repo from './identity-repository.js';
import type { SessionSummary } from './identity.schemas.js';
import { assertLiveSession } from './sessions.js';

/** Whether a request presenting the session would pass; the list never shows one that would fail. */
function isLive(entry: repo.ListedSession): boolean {
  try {
    assertLiveSession(entry);
    return true;
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}

export async function listSessions(ctx: AppContext, caller: Caller): Promise<{ sessions: SessionSummary[] }> {
  const listed = await repo.listSessions(ctx.db, caller.uid);
  return {
    sessions: listed.filter(isLive).map(({ session, method }) => ({
      session_id: session.id,
      device_id: session.device_id,
      method,
      created_at: session.created_at,
      last_used_at: session.last_used_at,
      expires_at: session.expires_at,
      acting_as: session.acting_manager_uid ? { manager_uid: session.acting_manager_uid } : null,
      current: session.id === caller.sessionId,
    })),
  };
}

/** Ends one of the caller's sessions, the current one included (it then works like logout). */
export async function revokeSession(
  ctx: AppContext,
  caller: Caller,
  sessionId: string,
): Promise<{ session_id: string; revoked: true }> {
  // Someone else's session answers as an unknown one, so ids cannot be probed.
  if (!(await repo.revokeOwnSession(ctx.db, caller.uid, sessionId))) {
    throw new AppError('session_not_found', 'You have no session with that id.');
  }
  return { session_id: sessionId, revoked: true };
}

/** Ends every live session of the caller but the one making the request. */
export async function revokeOtherSessions(ctx: AppContext, caller: Caller): Promise<{ revoked: string[] }> {
  return { revoked: await repo.revokeOtherSessions(ctx.db, caller.uid, caller.sessionId) };
}
