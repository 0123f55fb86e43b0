// Reading users: the caller's own profile (with scopes and contacts) and lookup by tag.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { asItself } from './managed-user-policy.js';
import { toUserOutput, type UserRecord } from './user-record.js';
import { findUserByUid, listContacts, viewUserByTag } from './users-repository.js';
import type { MeOutput, UserOutput } from './users.schemas.js';

export async function assertUserExists(ctx: AppContext, uid: string): Promise<UserRecord> {
  const user = await findUserByUid(ctx.db, uid);
  if (!user) throw new AppError('user_not_found', 'No such user.');
  return user;
}

/** `known`: the caller's record as a write just read it back, which spares reading it again. */
export async function getMe(ctx: AppContext, caller: Caller, known?: UserRecord): Promise<MeOutput> {
  const [user, contacts] = await Promise.all([
    known ?? assertUserExists(ctx, caller.uid),
    listContacts(ctx.db, caller.uid),
  ]);
  return { ...toUserOutput(user, asItself(caller.uid)), scopes: caller.permissions, contacts };
}

/** Tags are matched case-insensitively and may carry a leading @. As the caller is shown the user. */
export async function getUserByTag(ctx: AppContext, caller: Caller, tag: string): Promise<UserOutput> {
  const found = await viewUserByTag(ctx.db, caller.uid, tag.replace(/^@/, ''));
  if (!found) throw new AppError('user_not_found', 'No such user.');
  return toUserOutput(found.user, found.viewer);
}
