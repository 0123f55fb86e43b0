// Which committed writes change what a credential may do, and whose (security review 2026-12-02,
// finding 1). The session cache forgets, and open sockets judge again, only the credentials of the
// accounts a write names here: a profile edit, a new session or a code asked for names nobody, so
// it costs nobody else anything. Before, any write in identity/, users/ or contacts/ emptied every
// cache and re-judged every socket: profile edits at 24/s made 1,000 sockets' frames 4-8 times
// slower at p99 and Neo4j's reads 8-9 times as many.
//
// The rule is by statement, from the parameters it ran with. A statement of those folders that is
// not in the table counts as changing every credential, so a new statement is safe until it is
// classified (a test lists the folders' write statements against this table).
import type { Params, StatementRun } from '../../platform/neo4j/database.js';
import { onlyProfileFields } from '../users/profile-fields.js';

/** Whose credentials a write changes: the accounts it names, or every account. */
export type CredentialOwners = 'everyone' | readonly string[];

const nobody: CredentialOwners = [];
const theUser = (params: Params): CredentialOwners => [String(params.uid)];

/** A write of user fields: nobody's credentials when it writes profile fields only, else the user's. */
function userFields(params: Params): CredentialOwners {
  return onlyProfileFields((params.changes ?? {}) as Record<string, unknown>) ? nobody : theUser(params);
}

/**
 * Each write statement of identity/, users/ and contacts/, and whose credentials it changes. A
 * managed user's credentials also follow its managers' grants (principal.cypher): the session cache
 * adds the accounts the named ones manage.
 */
const CREDENTIAL_WRITES: Record<string, (params: Params) => CredentialOwners> = {
  // New credentials change no existing one; last-use times are read by no check.
  'identity/create-session': () => nobody,
  'identity/create-api-key': () => nobody,
  'identity/touch-sessions': () => nobody,
  'identity/touch-api-keys': () => nobody,
  'identity/refresh-session': theUser,
  'identity/revoke-session': theUser,
  'identity/revoke-own-session': theUser,
  'identity/revoke-other-sessions': theUser,
  'identity/revoke-user-sessions': theUser,
  'identity/revoke-api-key': theUser,
  'identity/set-password': theUser,
  'users/create-user': () => nobody,
  // The lock a managed user's creation takes on its manager (to count its managed users) changes nothing.
  'users/count-managed-users': () => nobody,
  // Profile edits (the caller's own, a manager's) name nobody; an administrator's scopes or API
  // access name the user.
  'users/set-user-fields': userFields,
  'users/set-profile-fields': userFields,
  'users/update-managed-user': userFields,
  'users/set-managed-user-active': theUser,
  'users/delete-managed-user': theUser,
  // $uid is the managed user in each: it gains or loses a manager whose grant caps its own.
  'users/accept-invitation': theUser,
  'users/remove-manager': theUser,
  // A pending invitation lends nothing (decision 023), and the lock only orders changes.
  'users/invite-manager': () => nobody,
  'users/decline-invitation': () => nobody,
  'users/withdraw-invitation': () => nobody,
  'users/lock-managers': () => nobody,
  // A verified contact adds scopes to its user; challenges and webhook endpoints are read by no check.
  'contacts/verify-contact': theUser,
  'contacts/save-challenge': () => nobody,
  'contacts/lock-challenge': () => nobody,
  'contacts/count-wrong-try': () => nobody,
  'contacts/delete-challenge': () => nobody,
  'contacts/use-challenge': () => nobody,
  'contacts/set-endpoint': () => nobody,
};

/** Folders whose statements may change a credential; outside them none does. */
const CREDENTIAL_AREAS = ['identity/', 'users/', 'contacts/', 'schema/'];

/** The statements CREDENTIAL_WRITES classifies (for the test that keeps it complete). */
export const CLASSIFIED_WRITES: readonly string[] = Object.keys(CREDENTIAL_WRITES);

/** Whose credentials a committed transaction's statements changed. */
export function credentialOwners(runs: readonly StatementRun[]): CredentialOwners {
  const owners = new Set<string>();
  for (const { name, params } of runs) {
    if (!CREDENTIAL_AREAS.some((area) => name.startsWith(area))) continue;
    const rule = CREDENTIAL_WRITES[name];
    // Reads of these folders run in write transactions too (find-*, list-*, judge-*): they change
    // nothing. Any other unclassified statement changes every credential, to be safe.
    if (!rule) {
      if (isRead(name)) continue;
      return 'everyone';
    }
    const named = rule(params);
    if (named === 'everyone') return named;
    for (const uid of named) owners.add(uid);
  }
  return [...owners];
}

function isRead(name: string): boolean {
  const verb = name.slice(name.indexOf('/') + 1).split('-')[0];
  return verb === 'find' || verb === 'list' || verb === 'judge' || verb === 'search';
}
