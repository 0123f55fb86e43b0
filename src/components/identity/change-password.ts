// POST /v1/auth/password/change. Managed users have no password (403). On success every other
// session of the user ends and a fresh one is issued, so a stolen session dies with the old password.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { findUserByUid } from '../users/users-repository.js';
import * as repo from './identity-repository.js';
import { assertStrongPassword, hashPassword, verifyPassword } from './passwords.js';
import { mintSignInSession, type MintedSession } from './sessions.js';

export async function changePassword(
  ctx: AppContext,
  caller: Caller,
  input: { current_password: string; new_password: string },
): Promise<MintedSession> {
  const stored = await repo.findPasswordHash(ctx.db, caller.uid);
  if (!stored || stored.is_managed) {
    throw new AppError('managed_user_forbidden', 'Managed users cannot have passwords.');
  }
  const failures = ctx.limits.loginFailuresByAccount;
  const accountKey = `uid:${caller.uid}`;
  await failures.assertNotBlocked(accountKey);
  if (!stored.password_hash || !(await verifyPassword(input.current_password, stored.password_hash))) {
    await failures.penalize(accountKey);
    throw new AppError('invalid_credentials', 'The current password is wrong.');
  }
  assertStrongPassword(input.new_password);
  await repo.setPasswordHash(
    ctx.db,
    caller.uid,
    await hashPassword(input.new_password, ctx.config.bcryptCost),
  );
  await repo.revokeUserSessions(ctx.db, caller.uid, null);
  const user = await findUserByUid(ctx.db, caller.uid);
  return mintSignInSession(ctx, { uid: caller.uid, scopes: user?.scopes ?? [] });
}
