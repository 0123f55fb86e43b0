// The invited side of co-management (docs/decisions/023): a user lists its pending invitations to
// manage someone, accepts one (it becomes a manager, with every right and the grant a manager lends)
// or declines it. Only the invited user may answer its invitation; an invitation whose inviter no
// longer manages the user, or whose user was deleted, cannot be accepted. Accepting changes who
// manages the user, so it is a users/ write that empties every instance's session cache: the
// managed user's grant follows its managers at once (principal.cypher).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { managersNow } from './manage-managers.js';
import { assertMayManage } from './managed-user-policy.js';
import { toUserOutput } from './user-record.js';
import * as repo from './users-repository.js';
import type { ManagerInvitation, ManagerList } from './users.schemas.js';

function invitationNotFound(): AppError {
  return new AppError('invitation_not_found', 'You have no pending invitation to manage that user.');
}

export async function listInvitations(
  ctx: AppContext,
  caller: Caller,
): Promise<{ invitations: ManagerInvitation[] }> {
  assertMayManage(caller, 'messages.read');
  const invitations = await repo.listInvitations(ctx.db, caller.uid);
  return {
    invitations: invitations.map((invitation) => ({
      // Invited is not yet managing: shown as anyone else is.
      user: toUserOutput(invitation.user, { uid: caller.uid, manages: false }),
      invited_by: invitation.invited_by,
      invited_at: invitation.invited_at,
    })),
  };
}

/** Makes the caller a manager of `uid`; answers its managers and pending invitations now. */
export async function acceptInvitation(ctx: AppContext, caller: Caller, uid: string): Promise<ManagerList> {
  // Managing needs what creating a managed user needs.
  assertMayManage(caller, 'messages.write');
  return ctx.db.inWrite(async (tx) => {
    if (!(await repo.acceptInvitation(tx, caller.uid, uid))) throw invitationNotFound();
    return managersNow(tx, uid);
  });
}

export async function declineInvitation(
  ctx: AppContext,
  caller: Caller,
  uid: string,
): Promise<{ uid: string; declined: true }> {
  assertMayManage(caller, 'messages.read');
  if (!(await repo.declineInvitation(ctx.db, caller.uid, uid))) throw invitationNotFound();
  return { uid, declined: true };
}
