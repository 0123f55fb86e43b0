// POST /v1/auth/password/change. Managed users have no password (403). On success every other
// session of the user ends and a fresh one is issued, so a stolen session dies with the old password;
// all of it in one transaction.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import * as repo from './identity-repository.js';
import { assertStrongPassword, hashPassword, verifyPassword } from './passwords.js';
import { mintSignInSession, type MintedSession } from './sessions.js';

export async function changePassword(
  ctx: AppContext,
  caller: Caller,
  input: { current_password: string; new_password: string },
  address: string,
): Promise<MintedSession> {
  const stored = await repo.findPasswordHash(ctx.db, caller.uid);
  if (!stored || stored.is_managed) {
    throw new AppError('managed_user_forbidden', 'Managed users cannot have passwords.');
  }
  // The same count as logins: a stolen session gives no extra guesses at the password.
  const failures = ctx.limits.loginFailures;
  const accountKeys = [`uid:${caller.uid}`];
  await failures.admit(accountKeys, address);
  if (!stored.password_hash || !(await verifyPassword(input.current_password, stored.password_hash))) {
    await failures.fail(accountKeys, address);
    throw new AppError('invalid_credentials', 'The current password is wrong.');
  }
  assertStrongPassword(input.new_password);
  // Hashed before the transaction, which then stays short. The new hash, the end of the other
  // sessions and the new session commit together: a failure midway must not leave a new password
  // with the stolen sessions still alive, nor sessions ended with no new one to answer.
  const passwordHash = await hashPassword(input.new_password, ctx.config.bcryptCost);
  return ctx.db.inWrite(async (tx) => {
    const user = await repo.setPasswordHash(tx, caller.uid, passwordHash);
    if (!user) throw new AppError('invalid_session', 'The session is invalid or has expired.');
    await repo.revokeUserSessions(tx, caller.uid, null);
    return mintSignInSession(ctx, { uid: caller.uid, scopes: user.scopes }, { method: 'password' }, tx);
  });
}
