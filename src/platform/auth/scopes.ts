// Scope names and the one guard that checks them. Use cases call assertScope; transports never do.
import { AppError } from '../errors.js';

export const SCOPES = [
  'messages.read',
  'messages.write',
  'realtime.connect',
  'channels.create',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Granted to every account. */
export const BASE_SCOPES: Scope[] = ['messages.read'];
/** Granted to managed users, and to users once they verify an email or phone. */
export const VERIFIED_SCOPES: Scope[] = ['messages.read', 'messages.write', 'realtime.connect'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Parses a space-delimited scope string; unknown names are reported, not dropped silently. */
export function parseScopeList(text: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(text.split(/\s+/).filter((name) => name.length > 0))];
  return { scopes: names.filter(isScope), unknown: names.filter((name) => !isScope(name)) };
}

/** Intersection of scope sets; `null` stands for "no restriction". */
export function intersectScopes(...sets: (readonly Scope[] | null)[]): Scope[] {
  let result: Scope[] = [...SCOPES];
  for (const set of sets) if (set !== null) result = result.filter((scope) => set.includes(scope));
  return result;
}

export interface HasPermissions {
  permissions: readonly Scope[];
}

/** How a caller gets each scope: the 403 says it, so a newcomer is not stuck at the first post. */
const HOW_TO_GET: Record<Scope, string> = {
  'messages.read': 'Every account has it; a session minted from an API key has at most the key’s scopes_cap.',
  'messages.write':
    'Accounts get it by verifying an email (POST /v1/auth/contacts/email/request {email}, then ' +
    '/v1/auth/contacts/email/verify {email, code}) or a phone; a local install writes the code to ' +
    '$SKEIN_DATA_DIR/outbox.jsonl. Bots (managed users) have it from creation. A session from an API key ' +
    'has at most the key’s scopes_cap.',
  'realtime.connect':
    'Accounts get it by verifying an email or a phone (POST /v1/auth/contacts/email/request); bots have it ' +
    'from creation. A session from an API key has at most the key’s scopes_cap.',
  'channels.create':
    'An administrator grants it: PATCH /v1/admin/users/{uid} {"scopes": [...]}, or on the server ' +
    '`npm run admin -- grant <user_tag> channels.create`; sessions signed in after the grant carry it.',
  admin: 'Only an administrator grants it (or SKEIN_ADMIN_TAG and SKEIN_ADMIN_PASSWORD at start-up).',
};

/** Whether the caller holds the scope: the one test behind assertScope, for callers that must not throw. */
export function hasScope(caller: HasPermissions, scope: Scope): boolean {
  return caller.permissions.includes(scope);
}

export function assertScope(caller: HasPermissions, scope: Scope): void {
  if (!hasScope(caller, scope)) {
    throw new AppError('insufficient_scope', `This action needs the ${scope} scope. ${HOW_TO_GET[scope]}`);
  }
}
