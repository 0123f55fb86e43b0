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

export function assertScope(caller: HasPermissions, scope: Scope): void {
  if (!caller.permissions.includes(scope)) {
    throw new AppError('insufficient_scope', `This action needs the ${scope} scope.`);
  }
}
