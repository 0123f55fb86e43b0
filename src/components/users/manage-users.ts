// Managed users and bots: POST /v1/managed/users creates one under the caller, GET lists them.
// Creating one needs messages.write: a managed user can write at once, so an unverified account
// must not be able to get writing rights by making a bot. An account manages at most
// SKEIN_MAX_MANAGED_USERS (security review 2026-12-02, item 4: each bot is another account's worth
// of sockets, webhooks and limits); past it, 422 `too_many_managed_users` and nothing is created.
import type { Caller } from '../../platform/auth/caller.js';
import { VERIFIED_SCOPES, assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { InputLocation } from '../../platform/validation.js';
import { contextOriginCheck } from './context-origin.js';
import { asManager } from './managed-user-policy.js';
import { assertUserExists } from './read-users.js';
import { toUserOutput } from './user-record.js';
import {
  createUserWith,
  listManagedUsers as listManaged,
  lockAndCountManagedUsers,
} from './users-repository.js';
import type { ManagedUserCreateInput, UserOutput } from './users.schemas.js';

export async function createManagedUser(
  ctx: AppContext,
  caller: Caller,
  input: ManagedUserCreateInput,
  inputAt: InputLocation = 'body',
): Promise<UserOutput> {
  if (caller.isManaged)
    throw new AppError('managed_user_forbidden', 'Managed users cannot manage other users.');
  assertScope(caller, 'messages.write');
  const manager = await assertUserExists(ctx, caller.uid);
  // A context origin must be one the new bot may see: a public root, since it has no edges yet.
  const check = contextOriginCheck(
    { context_origin_id: input.bot?.context_origin_id ?? null },
    { bot: input.bot },
    inputAt,
  );
  const user = await createUserWith(
    ctx.db,
    {
      user_tag: input.user_tag,
      display_name: input.display_name ?? null,
      is_managed: true,
      is_bot: input.is_bot,
      // A bot's API keys work when its manager has partner access (see docs/decisions/002).
      has_api_access: manager.has_api_access,
      scopes: VERIFIED_SCOPES,
      password_hash: null,
      email: null,
      manager_uid: caller.uid,
      bot: input.is_bot
        ? {
            modalities: input.bot?.modalities ?? [],
            integrations: input.bot?.integrations ?? [],
            versions: input.bot?.versions ?? [],
            context_origin_id: input.bot?.context_origin_id ?? null,
          }
        : null,
    },
    async (tx, created) => {
      // Counted in the creating transaction, the new one included, with the manager locked: creations
      // raced from one account cannot pass the ceiling together.
      const max = ctx.config.rateLimits.maxManagedUsers;
      if ((await lockAndCountManagedUsers(tx, caller.uid)) > max) {
        throw new AppError(
          'too_many_managed_users',
          `You already manage ${max} users, the most one account may; delete one before creating another.`,
        );
      }
      await check?.(tx, created);
      return created;
    },
  );
  return toUserOutput(user, asManager(caller.uid));
}

export async function listManagedUsers(ctx: AppContext, caller: Caller): Promise<{ users: UserOutput[] }> {
  const users = await listManaged(ctx.db, caller.uid);
  return { users: users.map((user) => toUserOutput(user, asManager(caller.uid))) };
}
