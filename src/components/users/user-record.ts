// A user as stored, and its one conversion to the API's UserOutput, as a given viewer is shown it.
import type { Scope } from '../../platform/auth/scopes.js';
import { mayKnowContextOrigin, type UserViewer } from './managed-user-policy.js';
import type { UserOutput } from './users.schemas.js';

export interface UserRecord {
  uid: string;
  user_tag: string;
  display_name: string | null;
  bio: string | null;
  is_managed: boolean;
  is_bot: boolean;
  has_api_access: boolean;
  scopes: Scope[];
  created_at: string;
  /** Set while a manager has the managed user deactivated, and on a deleted one. */
  deactivated_at: string | null;
  /** Set on a deleted managed user: a tombstone its messages still point to. */
  deleted_at: string | null;
  bot_modalities: string[] | null;
  bot_integrations: string[] | null;
  bot_versions: string[] | null;
  context_origin_id: string | null;
}

/** A user read for a viewer, with what that viewer is to it (judged in the same statement). */
export interface ViewedUser {
  user: UserRecord;
  viewer: UserViewer;
}

/** Maps a `u {.*}` projection, dropping what must never leave the repository (the password hash). */
export function toUserRecord(row: unknown): UserRecord {
  const u = row as Record<string, unknown>;
  return {
    uid: u.uid as string,
    user_tag: u.user_tag as string,
    display_name: (u.display_name as string | null) ?? null,
    bio: (u.bio as string | null) ?? null,
    is_managed: Boolean(u.is_managed),
    is_bot: Boolean(u.is_bot),
    has_api_access: Boolean(u.has_api_access),
    scopes: (u.scopes as Scope[] | null) ?? [],
    created_at: u.created_at as string,
    deactivated_at: (u.deactivated_at as string | null) ?? null,
    deleted_at: (u.deleted_at as string | null) ?? null,
    bot_modalities: (u.bot_modalities as string[] | null) ?? null,
    bot_integrations: (u.bot_integrations as string[] | null) ?? null,
    bot_versions: (u.bot_versions as string[] | null) ?? null,
    context_origin_id: (u.context_origin_id as string | null) ?? null,
  };
}

/** The user as `viewer` is shown it: the context origin only to the bot and its managers. */
export function toUserOutput(user: UserRecord, viewer: UserViewer): UserOutput {
  return {
    uid: user.uid,
    user_tag: user.user_tag,
    display_name: user.display_name,
    bio: user.bio,
    is_managed: user.is_managed,
    is_bot: user.is_bot,
    has_api_access: user.has_api_access,
    created_at: user.created_at,
    deactivated_at: user.deactivated_at,
    bot: user.is_bot
      ? {
          modalities: user.bot_modalities ?? [],
          integrations: user.bot_integrations ?? [],
          versions: user.bot_versions ?? [],
          context_origin_id: mayKnowContextOrigin(user, viewer) ? user.context_origin_id : null,
        }
      : null,
  };
}
