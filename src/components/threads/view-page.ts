// What the paginated views share: the channel filter's membership check, and turning a page of ids
// (one more than the limit), or a view's page query, into a PaginatedMessagesResponse.
import neo4j from 'neo4j-driver';
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { assertChannelMember } from '../channels/channel-policy.js';
import { hydrateMessages, hydrateWith, type Viewer } from '../messages/messages-repository.js';
import { needsLinks, selectFields, type FieldSelection } from '../messages/message-fields.js';
import type { MessageOutput, PaginatedMessages } from '../messages/messages.schemas.js';
import { pageIds, type PageWindow, type ViewQuery } from './threads-repository.js';

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

type PageAsked = PageWindow & { fields?: FieldSelection | undefined };

/**
 * The page of `ids` (one more than the limit tells has_more); with `window.fields` (the `fields=`
 * parameter), each message keeps only those keys, and links are not even read when none is asked.
 */
export async function messagePage(
  ctx: AppContext,
  viewer: Viewer,
  ids: string[],
  window: PageAsked,
): Promise<PaginatedMessages> {
  const fields = window.fields ?? null;
  const messages = await hydrateMessages(ctx.db, viewer, ids.slice(0, window.limit), ctx.config.publicUrl, {
    links: needsLinks(fields),
  });
  return pageOf(messages, ids, window);
}

/**
 * The page a view's page query finds, as messagePage answers it, for the query's viewer: found and
 * hydrated in one statement (cypher/messages/hydrate-page.cypher), unless the fields asked for need
 * no links (then the lighter hydrate-core.cypher after the query).
 */
export async function viewPage(
  ctx: AppContext,
  viewer: Viewer,
  query: ViewQuery,
  window: PageAsked,
): Promise<PaginatedMessages> {
  if (!needsLinks(window.fields ?? null))
    return messagePage(ctx, viewer, await pageIds(ctx.db, query), window);
  const answer = await hydrateWith(
    ctx.db,
    'messages/hydrate-page',
    { name: query.name, params: { ...query.params, hydrate_limit: neo4j.int(window.limit) } },
    ctx.config.publicUrl,
  );
  const ids = (answer?.record.ids as string[] | undefined) ?? [];
  const messages = ids.slice(0, window.limit).flatMap((id) => answer?.messages.get(id) ?? []);
  return pageOf(messages, ids, window);
}

function pageOf(messages: MessageOutput[], ids: string[], window: PageAsked): PaginatedMessages {
  const fields = window.fields ?? null;
  return {
    // A sparse message is a MessageOutput with keys left out, as the parameter documents.
    messages: messages.map((message) => selectFields(message, fields)) as PaginatedMessages['messages'],
    skip: window.skip,
    limit: window.limit,
    has_more: ids.length > window.limit,
  };
}
