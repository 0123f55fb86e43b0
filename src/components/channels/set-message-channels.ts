// PATCH /v1/messages/{message_id}/channels: replaces the channels holding a message, among the
// channels the caller belongs to. The caller must see the message (404 otherwise, as for a missing
// one) and belong to every target channel (403; 404 for a channel that does not exist). Inclusions
// in channels the caller is not in are not the caller's to remove, so they stay. Checks and write
// run in one transaction, with a `channels` event for each newly added channel (heard by its
// members) and `message.updated` for those who could see the message already.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import {
  announceEvents,
  channelEvents,
  recordEvents,
  recordMessageChange,
} from '../event-log/record-events.js';
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
  const response = await ctx.db
    .inWrite(async (tx) => {
      const refs = await findMessageChannelRefs(tx, caller.uid, messageId, channelIds);
      if (!refs.visible) throw messageNotFound();
      // Every missing channel is reported before any membership, whatever the order of the list.
      for (const id of channelIds) if (!refs.channels.has(id)) throw channelNotFound();
      for (const id of channelIds) checkChannelMember(refs.channels.get(id)!);
      // Those who saw the message before the change hear of it; new channels' members get `channels`.
      await recordMessageChange(tx, caller.uid, 'message.updated', [messageId], ['channels']);
      const result = await replace(tx, caller.uid, messageId, channelIds);
      if (!result) throw messageNotFound();
      const added = result.channel_ids.filter((id) => !result.before.includes(id));
      const removed = result.before.filter((id) => !result.channel_ids.includes(id));
      if (added.length === 0 && removed.length === 0) throw new NothingChanged(result.channel_ids);
      const inclusions = added.map((channel_id) => ({ message_id: messageId, channel_id }));
      await recordEvents(tx, caller.uid, channelEvents('channels', inclusions, caller.uid));
      return { message_id: messageId, channel_ids: result.channel_ids };
    })
    .catch((error: unknown) => {
      // The same channels again: the transaction is rolled back so that nobody hears of it.
      if (error instanceof NothingChanged) return { message_id: messageId, channel_ids: error.channelIds };
      throw error;
    });
  await announceEvents(ctx);
  return response;
}

class NothingChanged extends Error {
  constructor(readonly channelIds: string[]) {
    super('nothing changed');
  }
}
