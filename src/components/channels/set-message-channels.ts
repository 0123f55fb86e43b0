// PATCH /v1/messages/{message_id}/channels: replaces the channels holding a message, among the
// channels the caller belongs to. The caller must see the message (404 otherwise, as for a missing
// one) and belong to every target channel (403; 404 for a channel that does not exist). Inclusions
// in channels the caller is not in are not the caller's to remove, so they stay. Checks and write
// run in one transaction, with the `channels` notifications for the members of newly added channels
// (published after commit).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { planChannelNotifications, publishCommitted, recordNotifications } from '../events/outbox.js';
import { channelNotFound, checkChannelMember } from './channel-policy.js';
import { findMessageChannelRefs, setMessageChannels as replace } from './channels-repository.js';
import type { UpdateChannelsResponse } from './channels.schemas.js';

export async function setMessageChannels(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  channelIds: string[],
): Promise<UpdateChannelsResponse> {
  assertScope(caller, 'messages.write');
  const { response, notifications } = await ctx.db.inWrite(async (tx) => {
    const refs = await findMessageChannelRefs(tx, caller.uid, messageId, channelIds);
    if (!refs.visible) throw messageNotFound();
    // Every missing channel is reported before any membership, whatever the order of the list.
    for (const id of channelIds) if (!refs.channels.has(id)) throw channelNotFound();
    for (const id of channelIds) checkChannelMember(refs.channels.get(id)!);
    const result = await replace(tx, caller.uid, messageId, channelIds);
    if (!result) throw messageNotFound();
    const added = result.channel_ids.filter((id) => !result.before.includes(id));
    const planned = await planChannelNotifications(
      tx,
      caller.uid,
      added.map((channel_id) => ({ message_id: messageId, channel_id })),
    );
    return {
      response: { message_id: messageId, channel_ids: result.channel_ids },
      notifications: await recordNotifications(tx, planned),
    };
  });
  await publishCommitted(ctx, notifications);
  return response;
}
