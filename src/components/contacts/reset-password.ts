// POST /v1/auth/password/reset/request and POST /v1/auth/password/reset (no authentication).
// The code goes by email, only ever to an address the account has verified: an address typed at
// registration and never confirmed may be a typo or someone else's, and sending it a reset code
// would hand the account to whoever reads that mailbox. So an account without a verified email
// cannot reset its password (its owner verifies one first, or signs in otherwise); the request still
// answers 200, exactly as for an unknown user, so the answer never tells whether an account exists.
// The one exception is the spec's 409 when several accounts verified the same email.
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { assertStrongPassword, hashPassword } from '../identity/passwords.js';
import { mintSignInSession, type MintedSession } from '../identity/sessions.js';
import { findUserByUid } from '../users/users-repository.js';
import {
  MAX_WRONG_TRIES,
  assertCodeFormat,
  codeMatches,
  expiresAt,
  hashCode,
  invalidCode,
  isActive,
  newChallengeId,
  newCode,
  resetSlot,
} from './challenge-codes.js';
import { normalizeEmail } from './contact-values.js';
import * as repo from './contacts-repository.js';
import type { ChallengeResponse, PasswordResetInput, PasswordResetRequestInput } from './contacts.schemas.js';
import { sendCode } from './send-code.js';

interface ResetTarget {
  email: string | null;
  tag: string | null;
}

function parseTarget(input: { email?: string | undefined; user_tag?: string | undefined }): ResetTarget {
  const tag = input.user_tag?.trim().replace(/^@/, '') || null;
  const email = input.email === undefined ? null : normalizeEmail(input.email);
  if (email === null && tag === null) throw new AppError('missing_field', 'Give email or user_tag.');
  return { email, tag };
}

/** What was typed, as a rate-limit key: unknown accounts are limited exactly like known ones. */
function typedKey(target: ResetTarget): string {
  return target.tag !== null ? `tag:${target.tag.toLowerCase()}` : `email:${target.email}`;
}

/**
 * The account a reset means and the verified address its code goes to; null when there is none
 * (unknown, managed, no verified email, or the given email is not one the tagged account verified).
 * With only an email that several accounts verified: 409 ambiguous_email.
 */
async function resolveAccount(
  ctx: AppContext,
  target: ResetTarget,
): Promise<{ uid: string; email: string } | null> {
  const candidates = await repo.findResetCandidates(ctx.db, {
    tag_folded: target.tag?.toLowerCase() ?? null,
    email: target.email,
  });
  if (target.tag !== null) {
    const account = candidates[0];
    if (!account) return null;
    const email =
      target.email === null
        ? (account.verified_emails[0] ?? null)
        : account.verified_emails.includes(target.email)
          ? target.email
          : null;
    return email === null ? null : { uid: account.uid, email };
  }
  if (candidates.length > 1) {
    throw new AppError(
      'ambiguous_email',
      'Several accounts have verified this email; give user_tag to say which one.',
    );
  }
  const account = candidates[0];
  return account ? { uid: account.uid, email: target.email! } : null;
}

export async function requestPasswordReset(
  ctx: AppContext,
  input: PasswordResetRequestInput,
): Promise<ChallengeResponse> {
  const target = parseTarget(input);
  await ctx.limits.challengeRequestsByTarget.consume(`reset:${typedKey(target)}`);
  const account = await resolveAccount(ctx, target);

  const id = newChallengeId();
  const code = newCode();
  const expires = expiresAt(ctx.config);
  // For an unknown account the same write runs with a uid that matches nothing, so both answers
  // cost about the same; the answer itself is identical in shape.
  await repo.saveChallenge(ctx.db, {
    slot: resetSlot(account?.uid ?? ''),
    id,
    uid: account?.uid ?? '',
    purpose: 'reset',
    kind: 'email',
    value: account?.email ?? '',
    code_hash: hashCode(id, code),
    expires_at: expires,
  });
  if (account) {
    // Sent after answering: waiting for the mail server would make a known account answer slower
    // than an unknown one. A failure is logged; the user asks again.
    void sendCode(ctx, { channel: 'email', to: account.email, code, purpose: 'reset' }).catch(
      (error: unknown) => ctx.log.error({ err: error }, 'password reset code not delivered'),
    );
  }
  return { challenge_id: id, expires_at: expires, sent: true };
}

export async function resetPassword(
  ctx: AppContext,
  input: PasswordResetInput,
  address: string,
): Promise<MintedSession> {
  const target = parseTarget(input);
  assertCodeFormat(input.code);
  // Checked before the code, so a weak choice does not use up a try.
  assertStrongPassword(input.new_password);
  const account = await resolveAccount(ctx, target);

  // Counted per account and address, and paced per account (FailureGuard): a stranger's wrong codes
  // never block the owner's right one, which works within its own tries (5, then it dies).
  const failures = ctx.limits.resetCodeFailures;
  const failureKeys = [typedKey(target), ...(account ? [`uid:${account.uid}`] : [])];
  await failures.admit(failureKeys, address);
  const refuse = async () => {
    await failures.fail(failureKeys, address);
    // Unknown account, no live challenge and a wrong code answer alike (the spec has no 404 here).
    return invalidCode();
  };
  if (!account) throw await refuse();

  const outcome = await repo.withLockedChallenge(
    ctx.db,
    resetSlot(account.uid),
    async (challenge, writes) => {
      if (!isActive(challenge)) return 'none' as const;
      if (!codeMatches(challenge, input.code)) {
        await writes.countWrongTry(challenge.id, MAX_WRONG_TRIES);
        return 'wrong' as const;
      }
      await writes.resetPassword({
        challenge_id: challenge.id,
        uid: account.uid,
        password_hash: await hashPassword(input.new_password, ctx.config.bcryptCost),
      });
      return 'reset' as const;
    },
  );
  if (outcome !== 'reset') throw await refuse();

  await failures.succeed(failureKeys, address);
  // Proving control of the mailbox also clears the failed-login count, or an owner who just reset
  // could still be paced at sign-in.
  await ctx.limits.loginFailures.succeed([`uid:${account.uid}`], address);
  const user = await findUserByUid(ctx.db, account.uid);
  return mintSignInSession(ctx, { uid: account.uid, scopes: user?.scopes ?? [] });
}
