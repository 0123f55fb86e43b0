// GET /v1/links/messages/{message_id}/incoming|outgoing: the visible messages stitched to or from a
// visible message, newest stitch first, each message once.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { viewerOf } from '../messages/visibility-policy.js';
import { listLinkedIds, type LinkDirection } from './links-repository.js';
import type { LinkListQuery } from './links.schemas.js';

export async function listLinkedMessages(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  direction: LinkDirection,
  query: LinkListQuery,
): Promise<PaginatedMessages> {
  assertScope(caller, 'messages.read');
  const ids = await listLinkedIds(ctx.db, caller.uid, messageId, direction, {
    skip: query.skip,
    limit: query.limit,
    showAll: query.show_all_links,
  });
  if (!ids) throw messageNotFound();
  const page = ids.slice(0, query.limit);
  const messages = await hydrateMessages(ctx.db, viewerOf(caller), page, ctx.config.publicUrl);
  return { messages, skip: query.skip, limit: query.limit, has_more: ids.length > query.limit };
}
