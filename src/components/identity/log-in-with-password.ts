// POST /v1/auth/password/login. The answer to a wrong pair is the same whether or not the account
// exists, and every attempt costs exactly one bcrypt comparison (against a dummy hash when no single
// account is meant), so neither the answer nor its timing tells whether an account exists or how
// many share an email. An email names an account only once verified. Failed attempts are counted
// per account and address, and paced per account (FailureGuard): never a lock a stranger can set.
// The right password of a banned account gets no session (mintSignInSession, assertMaySignIn).
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { findUserByUid } from '../users/users-repository.js';
import * as repo from './identity-repository.js';
import { dummyPasswordHash, verifyPassword } from './passwords.js';
import { mintSignInSession, type MintedSession } from './sessions.js';

export async function logInWithPassword(
  ctx: AppContext,
  input: { user_tag?: string | undefined; email?: string | undefined; password: string },
  address: string,
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
  const failures = ctx.limits.loginFailures;
  await failures.admit(failureKeys, address);

  const candidate = candidates.length === 1 ? candidates[0]! : null;
  const hash = candidate?.password_hash ?? (await dummyPasswordHash(ctx.config.bcryptCost));
  const matched = await verifyPassword(input.password, hash);
  if (candidates.length > 1) {
    // Only an email can mean several accounts (tags are unique). Trying the password against each
    // would multiply the work per attempt; the reset flow answers the same 409 for this email.
    throw new AppError(
      'ambiguous_email',
      'Several accounts have verified this email; sign in with user_tag to say which one.',
    );
  }
  const user = matched && candidate ? await findUserByUid(ctx.db, candidate.uid) : null;
  if (!user) {
    await failures.fail(failureKeys, address);
    throw new AppError('invalid_credentials', 'Wrong user or password.');
  }
  await failures.succeed(failureKeys, address);
  return mintSignInSession(ctx, { uid: user.uid, scopes: user.scopes }, { method: 'password' });
}
