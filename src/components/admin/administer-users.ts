// Administration of accounts: the bootstrap admin from the environment, PATCH /v1/admin/users/{uid}
// to change a user's scopes and partner access (scope `admin`), and the server-side commands of
// `npm run admin` (src/admin-cli.ts).
import type { Caller } from '../../platform/auth/caller.js';
import { SCOPES, VERIFIED_SCOPES, assertScope, type Scope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { KeyCreated } from '../identity/identity.schemas.js';
import { createApiKey } from '../identity/manage-api-keys.js';
import { assertStrongPassword, hashPassword } from '../identity/passwords.js';
import { findManagedSubject } from '../identity/identity-repository.js';
import { OPERATOR } from '../users/managed-user-policy.js';
import { toUserOutput, type UserRecord } from '../users/user-record.js';
import { createUser, findUserByTag, listManagedUsers, setUserFields } from '../users/users-repository.js';
import type { UserOutput } from '../users/users.schemas.js';

export async function updateUserGrants(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: { scopes?: Scope[] | undefined; has_api_access?: boolean | undefined },
): Promise<UserOutput> {
  assertScope(caller, 'admin');
  const changes: Record<string, unknown> = {};
  if (input.scopes !== undefined) {
    changes.scopes = [...new Set(input.scopes)];
    // Final: verifying an email or phone later adds nothing (a ban stays a ban; finding #4).
    changes.scopes_by_admin = true;
  }
  if (input.has_api_access !== undefined) changes.has_api_access = input.has_api_access;
  const user = await setUserFields(ctx.db, uid, changes);
  if (!user) throw new AppError('user_not_found', 'No such user.');
  // An administrator is shown what anyone is: the context origin only of a bot it manages.
  const manages = (await findManagedSubject(ctx.db, caller.uid, uid)) !== null;
  return toUserOutput(user, { uid: caller.uid, manages });
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

// ---- Server-side administration (npm run admin): whoever runs it on the server is trusted, as
// whoever sets SKEIN_ADMIN_* is, so these take no caller and check no scope.

async function assertUserByTag(ctx: AppContext, tag: string): Promise<UserRecord> {
  const user = await findUserByTag(ctx.db, tag.replace(/^@/, ''));
  if (!user) throw new AppError('user_not_found', `No such user: ${tag}.`);
  return user;
}

/** Adds scopes to a user's grant (keeping what it has). */
export async function grantScopesByTag(
  ctx: AppContext,
  tag: string,
  scopes: Scope[],
): Promise<{ user: UserOutput; scopes: Scope[] }> {
  const user = await assertUserByTag(ctx, tag);
  const granted = [...new Set([...user.scopes, ...scopes])];
  const updated = await setUserFields(ctx.db, user.uid, { scopes: granted });
  return { user: toUserOutput(updated!, OPERATOR), scopes: granted };
}

/**
 * Turns API access on or off for a user and the users it manages: a bot inherits its manager's
 * access at creation, and a grant that skipped bots made before it was the UX probe's dead end.
 */
export async function setApiAccessByTag(ctx: AppContext, tag: string, on: boolean): Promise<UserOutput[]> {
  const user = await assertUserByTag(ctx, tag);
  const managed = await listManagedUsers(ctx.db, user.uid);
  const changed: UserOutput[] = [];
  for (const target of [user, ...managed]) {
    const updated = await setUserFields(ctx.db, target.uid, { has_api_access: on });
    changed.push(toUserOutput(updated!, OPERATOR));
  }
  return changed;
}

/**
 * A bot managed by `managerTag`, with API access and its first API key (the secret is shown once).
 * A bot holds no more than its managers hold, API access included (security finding #4), so the
 * manager gets API access too; `lacking` names the bot's scopes the manager does not hold, which
 * the bot therefore cannot use until the manager gets them.
 */
export async function createBotWithKey(
  ctx: AppContext,
  input: { managerTag: string; botTag: string; displayName?: string | undefined },
): Promise<{ bot: UserOutput; key: KeyCreated; lacking: Scope[] }> {
  const manager = await assertUserByTag(ctx, input.managerTag);
  if (manager.is_managed)
    throw new AppError('managed_user_forbidden', 'Managed users cannot manage other users.');
  if (!manager.has_api_access) await setUserFields(ctx.db, manager.uid, { has_api_access: true });
  const bot = await createUser(ctx.db, {
    user_tag: input.botTag.replace(/^@/, ''),
    display_name: input.displayName ?? null,
    is_managed: true,
    is_bot: true,
    has_api_access: true,
    scopes: VERIFIED_SCOPES,
    password_hash: null,
    email: null,
    manager_uid: manager.uid,
    bot: { modalities: ['text'], integrations: [], versions: [], context_origin_id: null },
  });
  // The key belongs to the bot, as if the bot had asked for it with its full grant (no cap).
  const botCaller: Caller = {
    uid: bot.uid,
    userTag: bot.user_tag,
    isManaged: true,
    permissions: VERIFIED_SCOPES,
    ceiling: null,
    via: 'session',
    sessionId: null,
    sessionToken: null,
    keyId: null,
    actingManagerUid: null,
  };
  const key = await createApiKey(ctx, botCaller, { label: 'created by npm run admin' });
  const lacking = VERIFIED_SCOPES.filter((scope) => !manager.scopes.includes(scope));
  return { bot: toUserOutput(bot, OPERATOR), key, lacking };
}
