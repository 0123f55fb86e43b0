// DELETE /v1/channels/{channel_id}: a channel admin deletes it, with its memberships and
// inclusions. The messages stay; whoever saw them only through this channel no longer does.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { assertChannelAdmin } from './channel-policy.js';
import { deleteChannel as remove } from './channels-repository.js';

export async function deleteChannel(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
): Promise<{ id: string; deleted: true }> {
  assertScope(caller, 'messages.write');
  await ctx.db.inWrite(async (tx) => {
    await assertChannelAdmin(ctx, caller, channelId, tx);
    await remove(tx, channelId);
  });
  return { id: channelId, deleted: true };
}
