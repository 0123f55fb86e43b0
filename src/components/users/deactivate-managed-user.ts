// POST /v1/managed/users/{uid}/deactivate and /reactivate. Deactivating suspends a managed user: its
// keys and every session (its own, and its managers' delegated ones) fail with 401 at once on every
// instance, since the write is a users/ statement after which each instance's session cache is
// emptied before the answer (session-cache.ts); nobody may delegate to it or act as it; the webhook
// planner gives it no deliveries and those pending are turned off. Its sessions end for good;
// reactivating brings its keys back (unless revoked or expired meanwhile), and its managers delegate
// afresh. Both are idempotent: deactivating again keeps the first time.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { asManager, assertMayManage, notManager } from './managed-user-policy.js';
import { toUserOutput } from './user-record.js';
import { setManagedUserActive } from './users-repository.js';
import type { UserOutput } from './users.schemas.js';

export function deactivateManagedUser(ctx: AppContext, caller: Caller, uid: string): Promise<UserOutput> {
  return setActive(ctx, caller, uid, false);
}

export function reactivateManagedUser(ctx: AppContext, caller: Caller, uid: string): Promise<UserOutput> {
  return setActive(ctx, caller, uid, true);
}

async function setActive(ctx: AppContext, caller: Caller, uid: string, active: boolean): Promise<UserOutput> {
  assertMayManage(caller, 'messages.write');
  const user = await setManagedUserActive(ctx.db, caller.uid, uid, active);
  if (!user) throw notManager();
  // The write matched only through the caller's manager link.
  return toUserOutput(user, asManager(caller.uid));
}
