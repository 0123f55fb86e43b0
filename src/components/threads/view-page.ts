// What the paginated views share: the channel filter's membership check, and turning a page of ids
// (one more than the limit) into a PaginatedMessagesResponse.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { assertChannelMember } from '../channels/channel-policy.js';
import { hydrateMessages, type Viewer } from '../messages/messages-repository.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import type { PageWindow } from './threads-repository.js';

/** The channel a view is narrowed to, after checking the caller belongs to it (404 / 403). */
export async function channelFilterOf(
  ctx: AppContext,
  caller: Caller,
  channelId: string | undefined,
): Promise<string | null> {
  if (channelId === undefined) return null;
  await assertChannelMember(ctx, caller, channelId);
  return channelId;
}

export async function messagePage(
  ctx: AppContext,
  viewer: Viewer,
  ids: string[],
  window: PageWindow,
): Promise<PaginatedMessages> {
  const messages = await hydrateMessages(ctx.db, viewer, ids.slice(0, window.limit), ctx.config.publicUrl);
  return { messages, skip: window.skip, limit: window.limit, has_more: ids.length > window.limit };
}
