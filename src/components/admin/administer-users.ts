// Administration of accounts: the bootstrap admin from the environment, and PATCH
// /v1/admin/users/{uid} to change a user's scopes and partner access (scope `admin`).
import type { Caller } from '../../platform/auth/caller.js';
import { SCOPES, assertScope, type Scope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { assertStrongPassword, hashPassword } from '../identity/passwords.js';
import { toUserOutput } from '../users/user-record.js';
import { createUser, findUserByTag, setUserFields } from '../users/users-repository.js';
import type { UserOutput } from '../users/users.schemas.js';

export async function updateUserGrants(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: { scopes?: Scope[] | undefined; has_api_access?: boolean | undefined },
): Promise<UserOutput> {
  assertScope(caller, 'admin');
  const changes: Record<string, unknown> = {};
  if (input.scopes !== undefined) changes.scopes = [...new Set(input.scopes)];
  if (input.has_api_access !== undefined) changes.has_api_access = input.has_api_access;
  const user = await setUserFields(ctx.db, uid, changes);
  if (!user) throw new AppError('user_not_found', 'No such user.');
  return toUserOutput(user);
}

/** Creates the admin named by SKEIN_ADMIN_TAG once; an existing account of that tag is left alone. */
export async function bootstrapAdmin(ctx: AppContext): Promise<void> {
  const admin = ctx.config.admin;
  if (!admin) return;
  if (await findUserByTag(ctx.db, admin.tag)) return;
  assertStrongPassword(admin.password);
  await createUser(ctx.db, {
    user_tag: admin.tag,
    display_name: admin.tag,
    is_managed: false,
    is_bot: false,
    has_api_access: true,
    scopes: [...SCOPES],
    password_hash: await hashPassword(admin.password, ctx.config.bcryptCost),
    email: null,
    manager_uid: null,
    bot: null,
  }).catch((error: unknown) => {
    // Another instance created it at the same moment.
    if (error instanceof AppError && error.code === 'user_tag_taken') return;
    throw error;
  });
  ctx.log.info({ user_tag: admin.tag }, 'created the bootstrap admin');
}
