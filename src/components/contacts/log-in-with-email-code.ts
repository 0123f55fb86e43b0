// POST /v1/auth/email-code/request and POST /v1/auth/email-code/login (no authentication): signing
// in with a 6-digit code mailed to an email the account has verified, for people who would rather
// not type a password. The code follows every rule of the password reset's (emailed-codes.ts): sent
// only to a verified email, the same answer whether or not an account has it, 409 ambiguous_email
// when several accounts verified it and no `user_tag` says which (both bodies take one, as the
// reset's do), 6 digits, single use, SKEIN_CODE_TTL_SECONDS, dead at the 5th wrong try, and the
// same limits (the wrong-code budget is shared with reset codes, since either signs the account
// in). A right code of a banned account gets no session, as a right password does not
// (mintSignInSession). A failed-login count is left alone: the password was not proven.
import type { AppContext } from '../../platform/context.js';
import { mintSignInSession, type MintedSession } from '../identity/sessions.js';
import { findUserByUid } from '../users/users-repository.js';
import type { ChallengeResponse, EmailCodeLoginInput, EmailCodeRequestInput } from './contacts.schemas.js';
import { parseTarget, redeemEmailedCode, sendEmailedCode } from './emailed-codes.js';

export function requestEmailCode(ctx: AppContext, input: EmailCodeRequestInput): Promise<ChallengeResponse> {
  return sendEmailedCode(ctx, 'signin', parseTarget(input));
}

export async function logInWithEmailCode(
  ctx: AppContext,
  input: EmailCodeLoginInput,
  address: string,
): Promise<MintedSession> {
  const account = await redeemEmailedCode(
    ctx,
    'signin',
    parseTarget(input),
    input.code,
    address,
    (challenge, writes) => writes.useChallenge(challenge.id),
  );
  const user = await findUserByUid(ctx.db, account.uid);
  return mintSignInSession(
    ctx,
    { uid: account.uid, scopes: user?.scopes ?? [] },
    { method: 'email_code', deviceId: input.device_id ?? null },
  );
}
