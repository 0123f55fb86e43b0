// Password hashing (bcrypt, cost from config, at least 12) and the strength rule: at least 10
// characters and not among the common passwords of the zxcvbn-ts list.
import bcrypt from 'bcrypt';
import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError } from '../../platform/errors.js';

const COMMON = new Set(dictionary['passwords-common'].map((word) => word.toLowerCase()));
export const MIN_PASSWORD_LENGTH = 10;

export function assertStrongPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new AppError('weak_password', `Passwords need at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (COMMON.has(password.toLowerCase())) {
    throw new AppError('weak_password', 'That password is too common.');
  }
}

export function hashPassword(password: string, cost: number): Promise<string> {
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
