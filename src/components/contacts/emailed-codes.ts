// Codes mailed to an account nobody is signed in to: password reset and sign-in by email. Both are
// reached without authentication, so this is the one place for what keeps them from telling a
// stranger anything:
// - A code goes only to an email the account has verified: an address typed at registration and
//   never confirmed may be a typo or someone else's, and a code sent there would hand the account
//   to whoever reads that mailbox. Accounts without one, and managed users, count as unknown.
// - Asking answers the same well-formed ChallengeResponse whether or not such an account exists
//   (the one exception is 409 ambiguous_email when several accounts verified the email): for an
//   unknown account the same save runs with a uid that matches nothing, and the mail goes out after
//   the answer, so neither the answer nor its timing depends on the account or the mail server.
// - Asking is limited per typed target (429, unknown targets alike) and per account (quietly: past
//   the account's budget nothing is sent and its live code stays, since a 429 only a known account
//   can get would tell which emails belong to a public tag).
// - Checking answers 400 invalid_code alike for an unknown account, no live code and a wrong code,
//   and runs the same statements for each (one write transaction: lock-challenge, count-wrong-try);
//   wrong codes count per challenge (the 5th kills it), and per typed target, account and client
//   address, paced per account (FailureGuard): a stranger's guesses never block the owner's code.
// - None of it empties a shared cache: a challenge is shown by no view and read by no session check,
//   so its statements are neutral to the view cache and harmless to the session cache (security
//   review 2026-11-28 #7: anonymous requests emptied both for everyone).
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import {
  MAX_WRONG_TRIES,
  assertCodeFormat,
  codeMatches,
  emailedCodeSlot,
  expiresAt,
  hashCode,
  invalidCode,
  isActive,
  newChallengeId,
  newCode,
  type EmailedCodePurpose,
  type StoredChallenge,
} from './challenge-codes.js';
import { normalizeEmail } from './contact-values.js';
import * as repo from './contacts-repository.js';
import type { ChallengeResponse } from './contacts.schemas.js';
import { sendCode } from './send-code.js';

/**
 * How a request names the account: an email, a tag, or both. A password reset may give either; a
 * sign-in code always gives the email, and the tag only to say which of the accounts that share it.
 */
export interface CodeTarget {
  email: string | null;
  tag: string | null;
}

/** The account a code is for, and the verified address it goes to. */
export interface CodeAccount {
  uid: string;
  email: string;
}

export function parseTarget(input: {
  email?: string | undefined;
  user_tag?: string | undefined;
}): CodeTarget {
  const tag = input.user_tag?.trim().replace(/^@/, '') || null;
  const email = input.email === undefined ? null : normalizeEmail(input.email);
  if (email === null && tag === null) throw new AppError('missing_field', 'Give email or user_tag.');
  return { email, tag };
}

/** What was typed, as a rate-limit key: unknown accounts are limited exactly like known ones. */
function typedKey(target: CodeTarget): string {
  return target.tag !== null ? `tag:${target.tag.toLowerCase()}` : `email:${target.email}`;
}

/**
 * The account a request means and the verified address its code goes to; null when there is none
 * (unknown, managed, no verified email, or the given email is not one the tagged account verified).
 * With only an email that several accounts verified: 409 ambiguous_email.
 */
async function resolveAccount(ctx: AppContext, target: CodeTarget): Promise<CodeAccount | null> {
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

/** Asks for a code: mails one to the account's verified email, if there is such an account. */
export async function sendEmailedCode(
  ctx: AppContext,
  purpose: EmailedCodePurpose,
  target: CodeTarget,
): Promise<ChallengeResponse> {
  await ctx.limits.challengeRequestsByTarget.consume(`${purpose}:${typedKey(target)}`);
  const found = await resolveAccount(ctx, target);
  // One budget for both purposes, apart from contact verification's, so a stranger spending it
  // cannot stop the owner from verifying an address while signed in.
  const withinBudget =
    found !== null && (await ctx.limits.challengeRequestsByAccount.tryConsume(`emailed:uid:${found.uid}`));
  const account = withinBudget ? found : null;

  const id = newChallengeId();
  const code = newCode();
  const expires = expiresAt(ctx.config);
  await repo.saveChallenge(ctx.db, {
    slot: emailedCodeSlot(purpose, account?.uid ?? ''),
    id,
    uid: account?.uid ?? '',
    purpose,
    kind: 'email',
    value: account?.email ?? '',
    code_hash: hashCode(id, code),
    expires_at: expires,
  });
  if (account) {
    // A failure is logged; the user asks again (the answer has no way to say it).
    void sendCode(ctx, { channel: 'email', to: account.email, code, purpose }).catch((error: unknown) =>
      ctx.log.error({ err: error, purpose }, 'emailed code not delivered'),
    );
  }
  return { challenge_id: id, expires_at: expires, sent: true };
}

/**
 * Checks `code` against the account's live code for `purpose`; when it is right, `use` runs in the
 * same transaction, with the challenge locked, and must use the challenge up. Answers the account.
 */
export async function redeemEmailedCode(
  ctx: AppContext,
  purpose: EmailedCodePurpose,
  target: CodeTarget,
  code: string,
  address: string,
  use: (challenge: StoredChallenge, writes: repo.ChallengeWrites, account: CodeAccount) => Promise<void>,
): Promise<CodeAccount> {
  assertCodeFormat(code);
  const account = await resolveAccount(ctx, target);
  const failures = ctx.limits.emailedCodeFailures;
  const failureKeys = [typedKey(target), ...(account ? [`uid:${account.uid}`] : [])];
  await failures.admit(failureKeys, address);
  const refuse = async () => {
    await failures.fail(failureKeys, address);
    return invalidCode();
  };

  // Every refusal costs the same statements, so that its time tells nothing: an unknown account
  // locks the slot of no one (no challenge is ever saved for uid ''), and with no challenge a try
  // is counted on nothing (an expired one counts it on itself), as a wrong code counts one.
  const outcome = await repo.withLockedChallenge(
    ctx.db,
    emailedCodeSlot(purpose, account?.uid ?? ''),
    async (challenge, writes) => {
      if (account && isActive(challenge) && codeMatches(challenge, code)) {
        await use(challenge, writes, account);
        return 'used' as const;
      }
      await writes.countWrongTry(challenge?.id ?? '', MAX_WRONG_TRIES);
      return 'refused' as const;
    },
  );
  if (outcome !== 'used' || !account) throw await refuse();
  await failures.succeed(failureKeys, address);
  return account;
}
