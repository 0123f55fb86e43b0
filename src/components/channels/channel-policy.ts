// Channel access in one place: members see a channel and its messages; admins change it; a member
// may leave; a channel always keeps an admin. Errors: a missing channel is 404 channel_not_found,
// a non-member 403 not_channel_member, a member who is not an admin 403 not_channel_admin.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { Tx } from '../../platform/neo4j/database.js';
import { findMembership, type MemberChangeState, type Membership } from './channels-repository.js';

export type { Membership };

export function channelNotFound(): AppError {
  return new AppError('channel_not_found', 'Channel not found.');
}

function notMember(): AppError {
  return new AppError('not_channel_member', 'You are not a member of that channel.');
}

/** Checks a membership already read (null: no such channel); answers it when the caller is a member. */
export function checkChannelMember<M extends { member: boolean }>(membership: M | null): M {
  if (!membership) throw channelNotFound();
  if (!membership.member) throw notMember();
  return membership;
}

/** Checks a membership already read (null: no such channel) for admin rights. */
export function checkChannelAdmin(membership: Membership | null): Membership {
  if (!membership) throw channelNotFound();
  if (!membership.is_admin) throw new AppError('not_channel_admin', 'Only a channel admin may do this.');
  return membership;
}

/**
 * 404 when the channel does not exist, 403 when the caller is not a member. Given `tx`, the check
 * runs inside that transaction, so a write that follows acts on what was checked.
 */
export async function assertChannelMember(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
  tx?: Tx,
): Promise<Membership> {
  return checkChannelMember(await findMembership(tx ?? ctx.db, channelId, caller.uid));
}

/** 404 when the channel does not exist, 403 unless the caller is one of its admins. */
export async function assertChannelAdmin(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
  tx?: Tx,
): Promise<void> {
  checkChannelAdmin(await findMembership(tx ?? ctx.db, channelId, caller.uid));
}

/**
 * Who may change a membership: an admin may add, change or remove anyone; a member may remove
 * themself (leave). A change that would leave members without an admin is refused with 409
 * `last_channel_admin`: promote someone first, or delete the channel.
 */
export function checkMemberChange(
  state: MemberChangeState | null,
  change: { self: boolean; removes: boolean; makesAdmin: boolean | null },
): MemberChangeState {
  if (!state) throw channelNotFound();
  const leaving = change.self && change.removes;
  if (!leaving) checkChannelAdmin(state.viewer);
  else if (!state.viewer.member) throw new AppError('member_not_found', 'That user is not a member.');
  const dropsAdmin = state.target.is_admin && (change.removes || change.makesAdmin === false);
  if (dropsAdmin && state.admin_count <= 1) {
    throw new AppError(
      'last_channel_admin',
      'The channel would be left without an admin: make another member an admin first, or delete the channel.',
    );
  }
  return state;
}
