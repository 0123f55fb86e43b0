// Reading channels: the caller's channels, one channel, and the messages included in a channel.
// Only members see a channel (403 otherwise; 404 when it does not exist).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { viewerOf } from '../messages/visibility-policy.js';
import { assertChannelMember, channelNotFound } from './channel-policy.js';
import { findChannels, listChannelMessageIds, listChannelsOf } from './channels-repository.js';
import type { ChannelMessagesQuery, ChannelOutput } from './channels.schemas.js';

export async function listChannels(ctx: AppContext, caller: Caller): Promise<ChannelOutput[]> {
  assertScope(caller, 'messages.read');
  return listChannelsOf(ctx.db, caller.uid);
}

export async function readChannel(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
): Promise<ChannelOutput> {
  assertScope(caller, 'messages.read');
  const [channel] = await findChannels(ctx.db, caller.uid, [channelId]);
  if (channel) return channel;
  // Not among the caller's channels: the policy says whether it is missing (404) or not theirs (403).
  await assertChannelMember(ctx, caller, channelId);
  const [joined] = await findChannels(ctx.db, caller.uid, [channelId]);
  if (!joined) throw channelNotFound();
  return joined;
}

/** The messages included in the channel, newest first; members only. */
export async function listChannelMessages(
  ctx: AppContext,
  caller: Caller,
  channelId: string,
  page: ChannelMessagesQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  await assertChannelMember(ctx, caller, channelId);
  const ids = await listChannelMessageIds(ctx.db, caller.uid, channelId, page);
  const messages = await hydrateMessages(
    ctx.db,
    viewerOf(caller),
    ids.slice(0, page.limit),
    ctx.config.publicUrl,
  );
  return { messages, skip: page.skip, limit: page.limit, has_more: ids.length > page.limit };
}
