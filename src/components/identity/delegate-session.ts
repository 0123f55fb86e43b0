// Sessions in which a manager acts as a user it manages: POST /v1/auth/act-as/{subject_uid} (a
// browser flow, which keeps the manager's own token in the svc_mgr_session cookie), its return, and
// POST /v1/managed/auth/delegate (a token for scripts, step b of minting a bot's first key).
// A delegated session is never broader than what the manager holds now through the credential that
// minted it, and dies with that credential (sessions.ts, managerHolds).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { notManager } from '../users/managed-user-policy.js';
import * as repo from './identity-repository.js';
import { callerFromSessionToken, mintSession, type Delegation, type MintedSession } from './sessions.js';

export async function delegateSession(
  ctx: AppContext,
  manager: Caller,
  subjectUid: string,
): Promise<MintedSession> {
  const subject = await repo.findManagedSubject(ctx.db, manager.uid, subjectUid);
  if (!subject) throw notManager();
  if (!subject.active) {
    throw new AppError(
      'account_disabled',
      'That user is deactivated; a manager reactivates it with POST /v1/managed/users/{uid}/reactivate.',
    );
  }
  return mintSession(ctx, {
    delegatedFrom: await delegationOf(ctx, manager),
    uid: subject.uid,
    grant: subject.scopes,
    requested: manager.ceiling,
    keyId: null,
    keyCap: null,
    deviceId: null,
    actingManagerUid: manager.uid,
    method: 'delegation',
  });
}

/** The manager's credential behind this request: its session if it has one, else its API key. */
async function delegationOf(ctx: AppContext, manager: Caller): Promise<Delegation> {
  if (manager.sessionId) {
    const found = await repo.findSession(ctx.db, manager.sessionId);
    if (!found) throw new AppError('invalid_session', 'The session is invalid or has expired.');
    return { sessionId: manager.sessionId, keyId: null, expiresAt: found.session.expires_at };
  }
  if (!manager.keyId) throw new AppError('invalid_session', 'The session is invalid or has expired.');
  const key = await repo.findApiKey(ctx.db, manager.keyId);
  return { sessionId: null, keyId: manager.keyId, expiresAt: key?.key.expires_at ?? null };
}

/** Ends the delegated session and hands back the manager's session kept in the backup cookie. */
export async function returnFromActAs(
  ctx: AppContext,
  current: Caller | null,
  backupToken: string | undefined,
): Promise<{ token: string; expires_in: number; expires_at: string }> {
  if (!backupToken) throw new AppError('invalid_session', 'There is no manager session to return to.');
  const manager = await callerFromSessionToken(ctx, backupToken);
  if (current?.sessionId && current.actingManagerUid === manager.uid) {
    await repo.revokeSession(ctx.db, current.uid, current.sessionId);
  }
  const found = await repo.findSession(ctx.db, manager.sessionId!);
  const expiresAt = found!.session.expires_at;
  return {
    token: backupToken,
    expires_at: expiresAt,
    expires_in: Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000)),
  };
}
