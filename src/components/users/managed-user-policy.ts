// Who may change a managed user: a current manager, with messages.write (creating one needs it
// too), never a managed user (managed users manage nobody). Anyone else, and a uid that is unknown
// or deleted, gets the one 403 `not_manager` that delegation, act-as and the delivery log answer,
// so the answer never tells whether the uid exists.
// Who may know a bot's context origin: the bot itself and its managers (mayKnowContextOrigin).
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

/** Who looks at a user, as far as what its UserOutput shows depends on it. */
export interface UserViewer {
  /** null for nobody signed in (the server's operator, OPERATOR). */
  uid: string | null;
  /**
   * Whether the viewer manages the user shown (a MANAGES edge): judged in the statement that read
   * the user, or known from the write that answers it (a manager's edit).
   */
  manages: boolean;
}

/** The viewer of its own account. */
export const asItself = (uid: string): UserViewer => ({ uid, manages: false });
/** A viewer whose managing the write or read that answers has just established. */
export const asManager = (uid: string): UserViewer => ({ uid, manages: true });
/** Whoever runs `npm run admin` on the server: trusted as a manager is (it can read the store anyway). */
export const OPERATOR: UserViewer = { uid: null, manages: true };

/**
 * Whether the viewer may know a bot's `context_origin_id`: only the bot and its managers. The
 * origin names a message that is often private to the bot (security review 2026-12-02, #5); to
 * anyone else UserOutput shows null, keeping the shape.
 */
export function mayKnowContextOrigin(user: { uid: string }, viewer: UserViewer): boolean {
  return viewer.manages || (viewer.uid !== null && viewer.uid === user.uid);
}
