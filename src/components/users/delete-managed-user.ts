// DELETE /v1/managed/users/{uid}: a manager deletes a managed user. It can no longer be used: its
// keys are revoked and its sessions ended, at once on every instance (a users/ write empties every
// instance's session cache before the answer), its contacts and pending webhook deliveries go. Its
// messages stay, attributed: the node stays as a tombstone with its uid and tag (the tag is not
// freed, so nobody can later pass for it), and its managers keep the right to edit or delete those
// messages. It is left out of the managers' lists; every managed route answers it as an unknown uid.
// See docs/decisions/015-bot-lifecycle.md.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { assertMayManage, notManager } from './managed-user-policy.js';
import { deleteManagedUser as writeTombstone } from './users-repository.js';

export async function deleteManagedUser(
  ctx: AppContext,
  caller: Caller,
  uid: string,
): Promise<{ uid: string; deleted: true }> {
  assertMayManage(caller, 'messages.write');
  if (!(await writeTombstone(ctx.db, caller.uid, uid))) throw notManager();
  return { uid, deleted: true };
}
