// Random identifiers and secrets, and the one way secrets are hashed and compared. Session secrets
// and API keys are stored only as SHA-256 hashes (they carry 256 bits of randomness, so a fast hash
// is enough); passwords use bcrypt (see components/identity/passwords.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** An 8-character lowercase hex id (uids, message, channel, file and key ids). */
export function newShortId(): string {
  return randomBytes(4).toString('hex');
}

/** A url-safe secret with 256 bits of randomness. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Compares a presented secret with a stored SHA-256 hash in constant time. */
export function matchesHash(presented: string, storedHash: string): boolean {
  const a = Buffer.from(sha256Hex(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

const SESSION_TOKEN = /^svc_session_([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;
const API_KEY = /^sk_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

export function formatSessionToken(id: string, secret: string): string {
  return `svc_session_${id}.${secret}`;
}

export function parseSessionToken(token: string): { id: string; secret: string } | null {
  const match = SESSION_TOKEN.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

export function newSessionId(): string {
  return randomBytes(8).toString('hex');
}

export function formatApiKey(keyId: string, secret: string): string {
  return `sk_${keyId}_${secret}`;
}

/**
 * Whether a presented token is meant as an API key (`sk_…`) rather than a session token. OpenAI-style
 * clients send their API key as `Authorization: Bearer <key>`, so a Bearer token can be either.
 */
export function isApiKeyToken(token: string): boolean {
  return token.startsWith('sk_');
}

export function parseApiKey(key: string): { keyId: string } | null {
  const match = API_KEY.exec(key);
  return match ? { keyId: match[1]! } : null;
}
