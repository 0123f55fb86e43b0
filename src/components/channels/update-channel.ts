// PATCH /v1/channels/{channel_id}: a channel admin changes its name or description. The admin
// check and the write run in one transaction.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { assertChannelAdmin, channelNotFound } from './channel-policy.js';
import { updateChannel as update } from './channels-repository.js';
import type { ChannelOutput, ChannelUpdateInput } from './channels.schemas.js';

export async function updateChannel(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
  input: ChannelUpdateInput,
): Promise<ChannelOutput> {
  assertScope(caller, 'messages.write');
  const changes: { display_name?: string; description?: string | null } = {};
  if (input.display_name !== undefined) changes.display_name = input.display_name;
  if (input.description !== undefined) changes.description = input.description;
  return ctx.db.inWrite(async (tx) => {
    await assertChannelAdmin(ctx, caller, channelId, tx);
    const channel = await update(tx, caller.uid, channelId, changes);
    if (!channel) throw channelNotFound();
    return channel;
  });
}
