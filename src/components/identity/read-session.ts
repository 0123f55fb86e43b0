// GET /v1/auth/session and POST /v1/auth/sessions/refresh. Reading never writes; refreshing keeps
// the token and moves the expiry, and recomputes a frozen permission set that came out empty.
import type { Caller } from '../../platform/auth/caller.js';
import { intersectScopes } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import * as repo from './identity-repository.js';
import type { SessionOutput } from './identity.schemas.js';
import { sessionExpiry, type MintedSession } from './sessions.js';

function assertSession(caller: Caller): { sessionId: string; token: string } {
  if (!caller.sessionId || !caller.sessionToken) {
    throw new AppError('invalid_session', 'This request carries no session (an API key is not one).');
  }
  return { sessionId: caller.sessionId, token: caller.sessionToken };
}

export async function readSession(ctx: AppContext, caller: Caller): Promise<SessionOutput> {
  const { sessionId } = assertSession(caller);
  const found = await repo.findSession(ctx.db, sessionId);
  if (!found) throw new AppError('invalid_session', 'The session is invalid or has expired.');
  const { session, user } = found;
  return {
    session_id: session.id,
    uid: user.uid,
    user_tag: user.user_tag,
    // What the session can do now: its frozen set, less anything taken from the account since (and,
    // acting for someone, from what the manager holds), as the request was authenticated.
    permissions: caller.permissions,
    created_at: session.created_at,
    expires_at: session.expires_at,
    device_id: session.device_id,
    acting_as: session.acting_manager_uid ? { manager_uid: session.acting_manager_uid } : null,
  };
}

export async function refreshSession(ctx: AppContext, caller: Caller): Promise<MintedSession> {
  const { sessionId, token } = assertSession(caller);
  const found = await repo.findSession(ctx.db, sessionId);
  if (!found) throw new AppError('invalid_session', 'The session is invalid or has expired.');
  const repaired = intersectScopes(found.session.requested, found.key?.scopes_cap ?? null, found.user.scopes);
  // A delegated session is refreshed up to its parent's expiry, never past it.
  const { expiresIn, expiresAt } = sessionExpiry(ctx, found.parent?.expires_at ?? null);
  const refreshed = await repo.refreshSession(ctx.db, caller.uid, sessionId, expiresAt, repaired);
  if (!refreshed) throw new AppError('invalid_session', 'The session is invalid or has expired.');
  return {
    session_id: sessionId,
    access_token: token,
    token_type: 'Bearer',
    expires_in: expiresIn,
    expires_at: expiresAt,
  };
}
