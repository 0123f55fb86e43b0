// The managers of a managed user: list them, add one, remove one (transfer is add, then remove
// yourself). Any current manager may add a regular user (no acceptance step: a manager could hand
// the bot's credentials over anyway) and remove any manager, themselves included, but never the
// last one (409 `last_manager`). A removed manager's delegated and act-as sessions for the user end
// at once on every instance: find-sessions requires the acting manager's link, and the removal is a
// users/ write, after which every instance's session cache is emptied before the answer.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { assertMayManage, notManager } from './managed-user-policy.js';
import type { UserRecord } from './user-record.js';
import * as repo from './users-repository.js';
import type { ManagerAddInput, Manager } from './users.schemas.js';

export async function listManagers(
  ctx: AppContext,
  caller: Caller,
  uid: string,
): Promise<{ managers: Manager[] }> {
  assertMayManage(caller, 'messages.read');
  const managers = await repo.listManagers(ctx.db, uid);
  if (!managers.some((manager) => manager.uid === caller.uid)) throw notManager();
  return { managers };
}

export async function addManager(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: ManagerAddInput,
): Promise<{ managers: Manager[] }> {
  assertMayManage(caller, 'messages.write');
  const user: UserRecord | null =
    input.uid !== undefined
      ? await repo.findUserByUid(ctx.db, input.uid)
      : await repo.findUserByTag(ctx.db, input.user_tag ?? '');
  const managers = await ctx.db.inWrite(async (tx) => {
    // A non-manager is refused before it learns anything of the named user.
    if (!(await repo.lockManagers(tx, caller.uid, uid, user?.uid ?? ''))) throw notManager();
    if (!user) throw new AppError('user_not_found', 'No such user.');
    if (user.is_managed) {
      throw new AppError('managed_user_forbidden', 'Managed users cannot manage other users.');
    }
    if (!(await repo.addManager(tx, caller.uid, uid, user.uid))) {
      throw new AppError('user_not_found', 'No such user.');
    }
    return repo.listManagers(tx, uid);
  });
  return { managers };
}

export async function removeManager(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  managerUid: string,
): Promise<{ managers: Manager[] }> {
  assertMayManage(caller, 'messages.write');
  const managers = await ctx.db.inWrite(async (tx) => {
    const state = await repo.lockManagers(tx, caller.uid, uid, managerUid);
    if (!state) throw notManager();
    if (!state.target_manages) {
      throw new AppError('manager_not_found', 'That user does not manage this user.');
    }
    if (state.manager_count <= 1) {
      throw new AppError(
        'last_manager',
        'A managed user keeps at least one manager: add another first, or delete it.',
      );
    }
    await repo.removeManager(tx, uid, managerUid);
    // Who manages it now; after removing yourself, the list you handed the user over to.
    return repo.listManagers(tx, uid);
  });
  return { managers };
}
