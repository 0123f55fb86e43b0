// Who may change a managed user: a current manager, with messages.write (creating one needs it
// too), never a managed user (managed users manage nobody). Anyone else, and a uid that is unknown
// or deleted, gets the one 403 `not_manager` that delegation, act-as and the delivery log answer,
// so the answer never tells whether the uid exists.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import { AppError } from '../../platform/errors.js';

export function notManager(): AppError {
  return new AppError('not_manager', 'You do not manage that user.');
}

/** Checks what can be checked before the database: the scope, and that the caller is no managed user. */
export function assertMayManage(caller: Caller, scope: 'messages.read' | 'messages.write'): void {
  assertScope(caller, scope);
  if (caller.isManaged) throw notManager();
}
