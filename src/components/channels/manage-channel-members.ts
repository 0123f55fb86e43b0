// Channel members: list (members), add or change (admins), remove (admins, or the member leaving).
// Each change locks the channel's memberships in its transaction, so the rule that a channel keeps
// an admin holds under concurrent changes.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { announceEvents, membershipEvent, recordEvents } from '../event-log/record-events.js';
import type { UserRecord } from '../users/user-record.js';
import { findUserByTag, findUserByUid } from '../users/users-repository.js';
import { assertChannelMember, checkMemberChange } from './channel-policy.js';
import { addMember, listMembers, lockMembers, removeMember } from './channels-repository.js';
import type { ChannelMember, ChannelMemberInput } from './channels.schemas.js';

function userNotFound(): AppError {
  return new AppError('user_not_found', 'No such user.');
}

export async function listChannelMembers(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
): Promise<{ members: ChannelMember[] }> {
  assertScope(caller, 'messages.read');
  await assertChannelMember(ctx, caller, channelId);
  const members = await listMembers(ctx.db, caller.uid, [channelId]);
  return { members: members.get(channelId) ?? [] };
}

export async function addChannelMember(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
  input: ChannelMemberInput,
): Promise<ChannelMember> {
  assertScope(caller, 'messages.write');
  const user: UserRecord | null =
    input.uid !== undefined
      ? await findUserByUid(ctx.db, input.uid)
      : await findUserByTag(ctx.db, input.user_tag ?? '');
  const added = await ctx.db.inWrite(async (tx) => {
    // An unknown user still passes through the admin check first, so non-admins learn nothing.
    const state = await lockMembers(tx, channelId, caller.uid, user?.uid ?? '');
    checkMemberChange(state, {
      self: user?.uid === caller.uid,
      removes: false,
      makesAdmin: input.is_admin ?? null,
    });
    if (!user) throw userNotFound();
    const member = await addMember(tx, caller.uid, channelId, user.uid, input.is_admin ?? null);
    if (!member) throw userNotFound();
    // The member's open sockets start following the channel (a repeated join is harmless).
    await recordEvents(tx, caller.uid, [membershipEvent(user.uid, channelId, true)]);
    return member;
  });
  await announceEvents(ctx);
  return added;
}

export async function removeChannelMember(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
  uid: string,
): Promise<{ channel_id: string; uid: string; removed: true }> {
  assertScope(caller, 'messages.write');
  await ctx.db.inWrite(async (tx) => {
    const state = checkMemberChange(await lockMembers(tx, channelId, caller.uid, uid), {
      self: uid === caller.uid,
      removes: true,
      makesAdmin: null,
    });
    if (!state.target.member || !(await removeMember(tx, channelId, uid))) {
      throw new AppError('member_not_found', 'That user is not a member of the channel.');
    }
    await recordEvents(tx, caller.uid, [membershipEvent(uid, channelId, false)]);
  });
  await announceEvents(ctx);
  return { channel_id: channelId, uid, removed: true };
}
