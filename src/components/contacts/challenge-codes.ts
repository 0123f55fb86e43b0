// The rules of a challenge, in one place: 6-digit codes from a CSPRNG, stored only as a salted
// SHA-256 (the challenge id is the salt, so equal codes never look alike) and compared in constant
// time; a lifetime (SKEIN_CODE_TTL_SECONDS, 10 minutes by default); death at the 5th wrong try; one
// live challenge per purpose, account and contact (a new request replaces the old one). Contact
// verification, password reset and sign-in by email all keep their codes here.
import { randomBytes, randomInt } from 'node:crypto';
import { matchesHash, sha256Hex } from '../../platform/auth/secrets.js';
import type { Config } from '../../platform/config.js';
import { AppError } from '../../platform/errors.js';
import type { ContactKind } from './contacts.schemas.js';

export const MAX_WRONG_TRIES = 5;
const CODE = /^\d{6}$/;

/** Codes mailed to an account nobody is signed in to; each signs the account in (emailed-codes.ts). */
export type EmailedCodePurpose = 'reset' | 'signin';
export type ChallengePurpose = 'verify' | EmailedCodePurpose;

export interface StoredChallenge {
  id: string;
  uid: string;
  purpose: ChallengePurpose;
  kind: ContactKind;
  value: string;
  code_hash: string | null;
  expires_at: string;
  failed_tries: number;
}

export function newChallengeId(): string {
  return randomBytes(8).toString('hex');
}

/** A uniformly drawn 6-digit code (leading zeros kept). */
export function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

export function hashCode(challengeId: string, code: string): string {
  return sha256Hex(`${challengeId}:${code}`);
}

export function codeMatches(challenge: StoredChallenge, code: string): boolean {
  return challenge.code_hash !== null && matchesHash(`${challenge.id}:${code}`, challenge.code_hash);
}

/** A code that is not 6 digits is refused before any challenge is looked at; it costs no try. */
export function assertCodeFormat(code: string): void {
  if (!CODE.test(code)) throw invalidCode();
}

export function invalidCode(): AppError {
  return new AppError('invalid_code', 'The code is wrong or no longer valid.');
}

export function noActiveChallenge(): AppError {
  return new AppError(
    'no_active_challenge',
    'There is no active verification for that contact: ask for a new code (it may have expired, been used, or had 5 wrong tries).',
  );
}

export function expiresAt(config: Config): string {
  return new Date(Date.now() + config.verification.codeTtlSeconds * 1000).toISOString();
}

/** Live: not expired, and (for codes) fewer than the allowed wrong tries. Used ones no longer exist. */
export function isActive(challenge: StoredChallenge | null): challenge is StoredChallenge {
  return (
    challenge !== null &&
    Date.parse(challenge.expires_at) > Date.now() &&
    challenge.failed_tries < MAX_WRONG_TRIES
  );
}

/** The one slot a challenge occupies; saving into a taken slot replaces what was there. */
export function verificationSlot(uid: string, kind: ContactKind, value: string): string {
  return `verify:${uid}:${kind}:${value}`;
}

/** One live emailed code per purpose and account: `reset:<uid>`, `signin:<uid>`. */
export function emailedCodeSlot(purpose: EmailedCodePurpose, uid: string): string {
  return `${purpose}:${uid}`;
}
