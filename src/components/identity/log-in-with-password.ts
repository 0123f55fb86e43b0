// POST /v1/auth/password/login. The answer to a wrong pair is the same whether or not the account
// exists (and takes as long: a dummy hash is compared). Failed attempts are counted per account.
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { findUserByUid } from '../users/users-repository.js';
import * as repo from './identity-repository.js';
import { dummyPasswordHash, verifyPassword } from './passwords.js';
import { mintSignInSession, type MintedSession } from './sessions.js';

export async function logInWithPassword(
  ctx: AppContext,
  input: { user_tag?: string | undefined; email?: string | undefined; password: string },
): Promise<MintedSession> {
  const tag = input.user_tag?.replace(/^@/, '') ?? null;
  const email = input.email?.trim().toLowerCase() ?? null;
  const candidates = await repo.findLoginCandidates(ctx.db, { tag, email });
  // Failures count against what was typed (so unknown accounts behave like known ones) and against
  // every account it may mean (so switching between tag and email gives no extra guesses).
  const failureKeys = [
    tag ? `tag:${tag.toLowerCase()}` : `email:${email}`,
    ...candidates.map((c) => `uid:${c.uid}`),
  ];
  const failures = ctx.limits.loginFailuresByAccount;
  for (const key of failureKeys) await failures.assertNotBlocked(key);

  let matchedUid: string | null = null;
  for (const candidate of candidates) {
    if (await verifyPassword(input.password, candidate.password_hash)) {
      matchedUid = candidate.uid;
      break;
    }
  }
  if (candidates.length === 0)
    await verifyPassword(input.password, await dummyPasswordHash(ctx.config.bcryptCost));
  const user = matchedUid ? await findUserByUid(ctx.db, matchedUid) : null;
  if (!user) {
    for (const key of failureKeys) await failures.penalize(key);
    throw new AppError('invalid_credentials', 'Wrong user or password.');
  }
  for (const key of failureKeys) await failures.reset(key);
  return mintSignInSession(ctx, { uid: user.uid, scopes: user.scopes });
}
