// POST /v1/auth/password/reset/request and POST /v1/auth/password/reset (no authentication).
// The code goes by email, only ever to an address the account has verified, and asking answers the
// same whether or not the account exists (emailed-codes.ts holds those rules for every emailed code).
// So an account without a verified email cannot reset its password: its owner verifies one first,
// or signs in otherwise.
import type { AppContext } from '../../platform/context.js';
import { assertStrongPassword, hashPassword } from '../identity/passwords.js';
import { mintSignInSession, type MintedSession } from '../identity/sessions.js';
import { findUserByUid } from '../users/users-repository.js';
import type { ChallengeResponse, PasswordResetInput, PasswordResetRequestInput } from './contacts.schemas.js';
import { parseTarget, redeemEmailedCode, sendEmailedCode } from './emailed-codes.js';

export function requestPasswordReset(
  ctx: AppContext,
  input: PasswordResetRequestInput,
): Promise<ChallengeResponse> {
  return sendEmailedCode(ctx, 'reset', parseTarget(input));
}

export async function resetPassword(
  ctx: AppContext,
  input: PasswordResetInput,
  address: string,
): Promise<MintedSession> {
  const target = parseTarget(input);
  // Checked before the code, so a weak choice does not use up a try.
  assertStrongPassword(input.new_password);
  const account = await redeemEmailedCode(
    ctx,
    'reset',
    target,
    input.code,
    address,
    async (challenge, writes, { uid }) => {
      await writes.resetPassword({
        challenge_id: challenge.id,
        uid,
        password_hash: await hashPassword(input.new_password, ctx.config.bcryptCost),
      });
    },
  );
  // Proving control of the mailbox also clears the failed-login count, or an owner who just reset
  // could still be paced at sign-in.
  await ctx.limits.loginFailures.succeed([`uid:${account.uid}`], address);
  const user = await findUserByUid(ctx.db, account.uid);
  return mintSignInSession(
    ctx,
    { uid: account.uid, scopes: user?.scopes ?? [] },
    { method: 'password_reset' },
  );
}
