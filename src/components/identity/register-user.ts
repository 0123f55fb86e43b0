// POST /v1/auth/register: a regular account with a password, signed in at once. It can read;
// writing and the socket come with a verified email or phone. The account and its first session
// are written in one transaction: a failure leaves no account behind to block the tag on a retry.
import { BASE_SCOPES } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { createUserWith } from '../users/users-repository.js';
import { assertStrongPassword, hashPassword } from './passwords.js';
import { mintSignInSession, type MintedSession } from './sessions.js';

export async function registerUser(
  ctx: AppContext,
  input: {
    user_tag: string;
    password: string;
    email?: string | undefined;
    display_name?: string | undefined;
  },
): Promise<MintedSession> {
  assertStrongPassword(input.password);
  const passwordHash = await hashPassword(input.password, ctx.config.bcryptCost);
  return createUserWith(
    ctx.db,
    {
      user_tag: input.user_tag,
      display_name: input.display_name ?? null,
      is_managed: false,
      is_bot: false,
      // Off by default (docs/decisions/002); SKEIN_DEFAULT_API_ACCESS=true opens it to every new account.
      has_api_access: ctx.config.defaultApiAccess,
      scopes: BASE_SCOPES,
      password_hash: passwordHash,
      email: input.email?.toLowerCase() ?? null,
      manager_uid: null,
      bot: null,
    },
    (tx, user) =>
      mintSignInSession(ctx, { uid: user.uid, scopes: user.scopes }, { method: 'registration' }, tx),
  );
}
