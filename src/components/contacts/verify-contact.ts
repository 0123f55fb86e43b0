// POST /v1/auth/contacts/{email|phone}/verify and /v1/auth/contacts/endpoint/verify.
// A right code verifies the email or phone (and, on the account's first, grants messages.write and
// realtime.connect, refreshing its unrestricted sessions in the same transaction). An endpoint is
// verified when it echoes a nonce; it then gets a new `whsec_` signing secret, shown once.
import { randomBytes } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller.js';
import { VERIFIED_SCOPES } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import {
  MAX_WRONG_TRIES,
  assertCodeFormat,
  codeMatches,
  invalidCode,
  isActive,
  noActiveChallenge,
  verificationSlot,
} from './challenge-codes.js';
import { assertMayHoldContact, normalizeContact } from './contact-policy.js';
import * as repo from './contacts-repository.js';
import type { VerificationResponse } from './contacts.schemas.js';
import { newNonce, proveEndpoint } from './endpoint-echo.js';

export async function verifyContactCode(
  ctx: AppContext,
  caller: Caller,
  kind: 'email' | 'phone',
  rawValue: string,
  code: string,
): Promise<VerificationResponse> {
  assertMayHoldContact(caller, kind);
  const value = normalizeContact(kind, rawValue);
  assertCodeFormat(code);
  const failures = ctx.limits.codeFailuresByAccount;
  const failureKey = `uid:${caller.uid}`;
  await failures.assertNotBlocked(failureKey);

  const outcome = await repo.withLockedChallenge(
    ctx.db,
    verificationSlot(caller.uid, kind, value),
    async (challenge, writes) => {
      if (!isActive(challenge)) return { result: 'none' } as const;
      if (!codeMatches(challenge, code)) {
        await writes.countWrongTry(challenge.id, MAX_WRONG_TRIES);
        return { result: 'wrong' } as const;
      }
      const verified = await writes.verifyContact({
        challenge_id: challenge.id,
        uid: caller.uid,
        kind,
        value,
        grant: VERIFIED_SCOPES,
      });
      return { result: 'verified', ...verified } as const;
    },
  );
  if (outcome.result === 'none') throw noActiveChallenge();
  if (outcome.result === 'wrong') {
    await failures.penalize(failureKey);
    throw invalidCode();
  }
  ctx.log.info(
    { uid: caller.uid, kind, granted: outcome.granted, refreshed_sessions: outcome.refreshed },
    'contact verified',
  );
  return { verified: true, kind, value: outcome.contact.value };
}

/** The Standard Webhooks secret format: whsec_ and the base64 of a 32-byte key. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function verifyEndpoint(
  ctx: AppContext,
  caller: Caller,
  rawUrl: string,
): Promise<VerificationResponse> {
  assertMayHoldContact(caller, 'endpoint');
  const url = normalizeContact('endpoint', rawUrl);
  // Each verify makes up to three outbound requests, so it counts like a request for a challenge.
  await ctx.limits.challengeRequestsByAccount.consume(`uid:${caller.uid}`);
  const slot = verificationSlot(caller.uid, 'endpoint', url);
  if (!isActive(await repo.findChallenge(ctx.db, slot))) throw noActiveChallenge();

  const proof = await proveEndpoint(url, newNonce(), { allowPrivate: ctx.config.webhookAllowPrivate });
  if (proof.outcome === 'refused') {
    throw new AppError(
      'invalid_endpoint',
      'The endpoint resolves to a private, loopback or link-local address, which Skein does not call. ' +
        'For local development, the operator may restart Skein with SKEIN_WEBHOOK_ALLOW_PRIVATE=true; or ' +
        'listen on the WebSocket instead (the SDKs’ run loop), which needs no public address.',
    );
  }
  if (proof.outcome === 'failed') {
    // The detail (DNS and socket errors, resolved addresses, each attempt's status) stays in the log:
    // echoed to the caller it would make verification a probe of hosts and ports.
    ctx.log.info({ uid: caller.uid, url, detail: proof.detail }, 'endpoint verification failed');
    throw new AppError(
      'endpoint_unreachable',
      'The endpoint could not be reached, or answered none of the three attempts with a 2xx status.',
    );
  }
  if (proof.outcome === 'mismatch') {
    throw new AppError('nonce_mismatch', 'The endpoint answered, but did not echo the nonce.');
  }

  const secret = newWebhookSecret();
  const contact = await repo.withLockedChallenge(ctx.db, slot, async (challenge, writes) =>
    isActive(challenge)
      ? writes.setEndpoint({ challenge_id: challenge.id, uid: caller.uid, url, secret })
      : null,
  );
  if (!contact) throw noActiveChallenge();
  return { verified: true, kind: 'endpoint', value: contact.value, secret };
}
