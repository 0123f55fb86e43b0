// PATCH /v1/managed/users/{uid}: a manager edits a managed user's display name, bio and bot metadata,
// with the rules and the field mapping of the caller's own profile edit (update-profile.ts).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { assertMayManage, notManager } from './managed-user-policy.js';
import { profileChanges } from './update-profile.js';
import { toUserOutput } from './user-record.js';
import { updateManagedUser as writeManagedUser } from './users-repository.js';
import type { ManagedUserUpdateInput, UserOutput } from './users.schemas.js';

export async function updateManagedUser(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: ManagedUserUpdateInput,
): Promise<UserOutput> {
  assertMayManage(caller, 'messages.write');
  // An empty edit still checks the link and answers the user as it is.
  const user = await writeManagedUser(ctx.db, caller.uid, uid, profileChanges(input));
  if (!user) throw notManager();
  return toUserOutput(user);
}
