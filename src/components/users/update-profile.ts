// POST /v1/users/profile: the caller edits its own display name, bio and bot metadata. A bot sets
// its own context origin here (context-origin.ts checks it).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { InputLocation } from '../../platform/validation.js';
import { contextOriginCheck } from './context-origin.js';
import { getMe } from './read-users.js';
import { setProfileFields } from './users-repository.js';
import type { ManagedUserUpdateInput, MeOutput, ProfileUpdateInput } from './users.schemas.js';

/**
 * The stored fields a profile edit changes: only those sent. One mapping for the caller's own edit
 * and a manager's edit of a managed user (update-managed-user.ts).
 */
export function profileChanges(input: ProfileUpdateInput | ManagedUserUpdateInput): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (input.display_name !== undefined) changes.display_name = input.display_name;
  if (input.bio !== undefined) changes.bio = input.bio;
  if (input.is_bot !== undefined) changes.is_bot = input.is_bot;
  if (input.bot?.modalities !== undefined) changes.bot_modalities = input.bot.modalities;
  if (input.bot?.integrations !== undefined) changes.bot_integrations = input.bot.integrations;
  if (input.bot?.versions !== undefined) changes.bot_versions = input.bot.versions;
  const origin =
    'context_origin_id' in input && input.context_origin_id !== undefined
      ? input.context_origin_id
      : input.bot?.context_origin_id;
  if (origin !== undefined) changes.context_origin_id = origin;
  return changes;
}

/** `inputAt` names where the input came from (REST body, GraphQL args) in a 422's `loc`. */
export async function updateProfile(
  ctx: AppContext,
  caller: Caller,
  input: ProfileUpdateInput,
  inputAt: InputLocation = 'body',
): Promise<MeOutput> {
  const changes = profileChanges(input);
  if (Object.keys(changes).length === 0) return getMe(ctx, caller);
  const written = await setProfileFields(
    ctx.db,
    caller.uid,
    changes,
    contextOriginCheck(changes, input, inputAt),
  );
  if (!written) throw new AppError('user_not_found', 'No such user.');
  // Answered from what the write read back: an edit costs its write and the contacts read only.
  return getMe(ctx, caller, written);
}
