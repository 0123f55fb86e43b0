// The managers of a managed user: list them, invite one, remove one (transfer is invite, accept,
// then remove yourself). Any current manager may invite a regular user, who becomes a manager only by
// accepting (answer-invitations.ts): a manager link lends the managed user its grant and API access,
// so nobody is made one, and no restriction of a manager is undone, without the added account's
// consent (security finding #3, docs/decisions/023). Any manager may remove any manager, themselves
// included, but never the last one (409 `last_manager`), and withdraw a pending invitation. A removed
// manager's delegated and act-as sessions for the user end at once on every instance: find-sessions
// requires the acting manager's link, and the removal is a users/ write, after which every
// instance's session cache is emptied before the answer.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { Database, Tx } from '../../platform/neo4j/database.js';
import { assertMayManage, notManager } from './managed-user-policy.js';
import type { UserRecord } from './user-record.js';
import * as repo from './users-repository.js';
import type { ManagerAddInput, ManagerList } from './users.schemas.js';

/** The managers and pending invitations of a managed user the caller manages (else not_manager). */
export async function listManagers(ctx: AppContext, caller: Caller, uid: string): Promise<ManagerList> {
  assertMayManage(caller, 'messages.read');
  const list = await repo.listManagers(ctx.db, uid);
  // A pending invitee is no manager: it is refused like anyone else.
  if (!list?.managers.some((manager) => manager.uid === caller.uid)) throw notManager();
  return list;
}

/**
 * Invites a regular user to manage `uid`: the answer lists it under `invitations` until it accepts.
 * Inviting a current manager, or a user already invited, changes nothing.
 */
export async function addManager(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: ManagerAddInput,
): Promise<ManagerList> {
  assertMayManage(caller, 'messages.write');
  const user: UserRecord | null =
    input.uid !== undefined
      ? await repo.findUserByUid(ctx.db, input.uid)
      : await repo.findUserByTag(ctx.db, input.user_tag ?? '');
  return ctx.db.inWrite(async (tx) => {
    // A non-manager is refused before it learns anything of the named user.
    if (!(await repo.lockManagers(tx, caller.uid, uid, user?.uid ?? ''))) throw notManager();
    if (!user) throw new AppError('user_not_found', 'No such user.');
    if (user.is_managed) {
      throw new AppError('managed_user_forbidden', 'Managed users cannot manage other users.');
    }
    if (!(await repo.inviteManager(tx, caller.uid, uid, user.uid))) {
      throw new AppError('user_not_found', 'No such user.');
    }
    return managersNow(tx, uid);
  });
}

/**
 * Removes a manager, or withdraws the pending invitation of a user who has not accepted. A removed
 * manager's pending invitations for this user are withdrawn with it (remove-manager.cypher).
 */
export async function removeManager(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  managerUid: string,
): Promise<ManagerList> {
  assertMayManage(caller, 'messages.write');
  return ctx.db.inWrite(async (tx) => {
    const state = await repo.lockManagers(tx, caller.uid, uid, managerUid);
    if (!state) throw notManager();
    if (!state.target_manages) {
      if (state.target_invited) {
        await repo.withdrawInvitation(tx, uid, managerUid);
        return managersNow(tx, uid);
      }
      throw new AppError('manager_not_found', 'That user does not manage this user.');
    }
    if (state.manager_count <= 1) {
      throw new AppError(
        'last_manager',
        'A managed user keeps at least one manager: another must accept an invitation first, or delete it.',
      );
    }
    await repo.removeManager(tx, uid, managerUid);
    // Who manages it now; after removing yourself, the list you handed the user over to.
    return managersNow(tx, uid);
  });
}

/** The list as it is after a change in this transaction (the managed user was locked, so it exists). */
export async function managersNow(source: Database | Tx, uid: string): Promise<ManagerList> {
  return (await repo.listManagers(source, uid)) ?? { managers: [], invitations: [] };
}
