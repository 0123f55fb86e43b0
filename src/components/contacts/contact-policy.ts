// Who may hold which contact: regular users all three kinds; managed users (bots and proxies, however
// they act: a delegated or act-as session of their manager, or their own key) only an endpoint, as
// the spec says. Each request acts on the caller's own account, so no other check is needed; no
// scope is needed either, since verifying an email is how a read-only account earns messages.write.
import type { Caller } from '../../platform/auth/caller.js';
import { AppError } from '../../platform/errors.js';
import type { ContactKind } from './contacts.schemas.js';
import { normalizeEmail, normalizeEndpoint, normalizePhone } from './contact-values.js';

export function assertMayHoldContact(caller: Caller, kind: ContactKind): void {
  if (caller.isManaged && kind !== 'endpoint') {
    throw new AppError('managed_user_forbidden', 'Managed users accept only endpoint contacts.');
  }
}

/** The stored form of a contact value; a malformed one is 400 invalid_email / invalid_phone / invalid_endpoint. */
export function normalizeContact(kind: ContactKind, value: string): string {
  if (kind === 'email') return normalizeEmail(value);
  if (kind === 'phone') return normalizePhone(value);
  return normalizeEndpoint(value);
}
