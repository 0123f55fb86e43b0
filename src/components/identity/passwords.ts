// Password hashing (bcrypt, cost from config, at least 12) and the rules on passwords: at least 10
// characters, not among the common passwords of the zxcvbn-ts list, and at most 72 bytes.
import bcrypt from 'bcrypt';
import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError } from '../../platform/errors.js';

const COMMON = new Set(dictionary['passwords-common'].map((word) => word.toLowerCase()));
export const MIN_PASSWORD_LENGTH = 10;

/**
 * bcrypt reads only the first 72 bytes of a password, so two passwords that differ after that would
 * both sign in. Longer passwords are refused (every input schema checks this through `fitsBcrypt`)
 * rather than silently cut or pre-hashed: the rule is then visible to users and keeps stored hashes
 * plain bcrypt.
 */
export const MAX_PASSWORD_BYTES = 72;

export function fitsBcrypt(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES;
}

export function assertStrongPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new AppError('weak_password', `Passwords need at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (COMMON.has(password.toLowerCase())) {
    throw new AppError('weak_password', 'That password is too common.');
  }
}

export function hashPassword(password: string, cost: number): Promise<string> {
  // The API refuses such passwords before this; the check here keeps other paths (the bootstrap
  // admin's configured password) from storing a hash that ignores part of the password.
  if (!fitsBcrypt(password)) {
    return Promise.reject(new Error(`Passwords are at most ${MAX_PASSWORD_BYTES} bytes in UTF-8.`));
  }
  return bcrypt.hash(password, cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

/** A hash to compare against when no account matches, so that timing does not reveal whether it exists. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(cost: number): Promise<string> {
  dummyHash ??= bcrypt.hash('skein-no-such-account', cost);
  return dummyHash;
}
