// Channel access in one place: members see a channel and its messages; admins change it.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';

export interface Membership {
  member: boolean;
  is_admin: boolean;
}

async function findMembership(ctx: AppContext, caller: Caller, channelId: string): Promise<Membership> {
  const [row] = await ctx.db.read('channels/find-membership', {
    channel_id: channelId,
    viewer_uid: caller.uid,
  });
  if (!row) throw new AppError('channel_not_found', 'Channel not found.');
  return { member: row.member === true, is_admin: row.is_admin === true };
}

/** 404 when the channel does not exist, 403 when the caller is not a member. */
export async function assertChannelMember(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
): Promise<Membership> {
  const membership = await findMembership(ctx, caller, channelId);
  if (!membership.member) throw new AppError('not_channel_member', 'You are not a member of that channel.');
  return membership;
}

/** 404 when the channel does not exist, 403 unless the caller is one of its admins. */
export async function assertChannelAdmin(ctx: AppContext, caller: Caller, channelId: string): Promise<void> {
  const membership = await findMembership(ctx, caller, channelId);
  if (!membership.is_admin) throw new AppError('not_channel_admin', 'Only a channel admin may do this.');
}
