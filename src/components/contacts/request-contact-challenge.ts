// POST /v1/auth/contacts/{email|phone|endpoint}/request: starts a verification of one of the caller's
// contacts. Email and phone get a 6-digit code by mail or SMS; an endpoint gets nothing yet (the nonce
// goes out when the caller asks to verify, so the endpoint is called once it is ready). A new request
// for the same contact replaces the previous challenge. Limited per account and per address.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { DeliveryFailed } from '../../platform/messaging/transports.js';
import { expiresAt, hashCode, newChallengeId, newCode, verificationSlot } from './challenge-codes.js';
import { assertMayHoldContact, normalizeContact } from './contact-policy.js';
import * as repo from './contacts-repository.js';
import type { ChallengeResponse, ContactKind } from './contacts.schemas.js';
import { sendCode } from './send-code.js';

export async function requestContactChallenge(
  ctx: AppContext,
  caller: Caller,
  kind: ContactKind,
  rawValue: string,
): Promise<ChallengeResponse> {
  assertMayHoldContact(caller, kind);
  const value = normalizeContact(kind, rawValue);
  await ctx.limits.challengeRequestsByAccount.consume(`uid:${caller.uid}`);
  await ctx.limits.challengeRequestsByTarget.consume(`${kind}:${value}`);

  const id = newChallengeId();
  const code = kind === 'endpoint' ? null : newCode();
  const expires = expiresAt(ctx.config);
  await repo.saveChallenge(ctx.db, {
    slot: verificationSlot(caller.uid, kind, value),
    id,
    uid: caller.uid,
    purpose: 'verify',
    kind,
    value,
    code_hash: code === null ? null : hashCode(id, code),
    expires_at: expires,
  });
  if (code !== null && kind !== 'endpoint') {
    try {
      await sendCode(ctx, { channel: kind, to: value, code, purpose: 'verify' });
    } catch (error) {
      if (!(error instanceof DeliveryFailed)) throw error;
      // Nobody can answer a code that was never delivered; dropping the challenge makes a verify
      // attempt say "no active challenge" instead of "wrong code".
      await repo
        .deleteChallenge(ctx.db, id)
        .catch((dropError: unknown) => ctx.log.warn({ err: dropError }, 'undelivered challenge not dropped'));
      ctx.log.error({ err: error, kind }, 'verification code not delivered');
      throw new AppError(
        'delivery_failed',
        `The ${kind === 'email' ? 'email' : 'SMS'} with the code could not be sent; try again later.`,
      );
    }
  }
  return { challenge_id: id, expires_at: expires, sent: true };
}
