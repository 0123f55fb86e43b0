// What the paginated views share: the channel filter's membership check, and turning a page of ids
// (one more than the limit) into a PaginatedMessagesResponse.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { assertChannelMember } from '../channels/channel-policy.js';
import { hydrateMessages, type Viewer } from '../messages/messages-repository.js';
import { needsLinks, selectFields, type FieldSelection } from '../messages/message-fields.js';
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

/**
 * The page of `ids` (one more than the limit tells has_more); with `window.fields` (the `fields=`
 * parameter), each message keeps only those keys, and links are not even read when none is asked.
 */
export async function messagePage(
  ctx: AppContext,
  viewer: Viewer,
  ids: string[],
  window: PageWindow & { fields?: FieldSelection | undefined },
): Promise<PaginatedMessages> {
  const fields = window.fields ?? null;
  const messages = await hydrateMessages(ctx.db, viewer, ids.slice(0, window.limit), ctx.config.publicUrl, {
    links: needsLinks(fields),
  });
  return {
    // A sparse message is a MessageOutput with keys left out, as the parameter documents.
    messages: messages.map((message) => selectFields(message, fields)) as PaginatedMessages['messages'],
    skip: window.skip,
    limit: window.limit,
    has_more: ids.length > window.limit,
  };
}
