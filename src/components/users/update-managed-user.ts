// PATCH /v1/managed/users/{uid}: a manager edits a managed user's display name, bio and bot metadata,
// with the rules and the field mapping of the caller's own profile edit (update-profile.ts), the
// bot's context origin included (context-origin.ts: one the bot may see, checked after the link).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import type { InputLocation } from '../../platform/validation.js';
import { contextOriginCheck } from './context-origin.js';
import { asManager, assertMayManage, notManager } from './managed-user-policy.js';
import { profileChanges } from './update-profile.js';
import { toUserOutput } from './user-record.js';
import { updateManagedUser as writeManagedUser } from './users-repository.js';
import type { ManagedUserUpdateInput, UserOutput } from './users.schemas.js';

export async function updateManagedUser(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: ManagedUserUpdateInput,
  inputAt: InputLocation = 'body',
): Promise<UserOutput> {
  assertMayManage(caller, 'messages.write');
  // An empty edit still checks the link and answers the user as it is. The origin is judged only
  // once the link holds, so a stranger learns nothing of what a bot may see.
  const changes = profileChanges(input);
  const user = await writeManagedUser(
    ctx.db,
    caller.uid,
    uid,
    changes,
    contextOriginCheck(changes, input, inputAt),
  );
  if (!user) throw notManager();
  // The write matched only through the caller's manager link.
  return toUserOutput(user, asManager(caller.uid));
}
