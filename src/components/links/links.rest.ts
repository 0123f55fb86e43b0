// /v1 stitch (link) routes:
//   POST   /v1/links/messages/:message_id_from/:message_id_to   draw the caller's stitch (idempotent)
//   DELETE /v1/links/messages/:message_id_from/:message_id_to   remove it (the FROM author may remove any)
//   GET    /v1/links/messages/:message_id/incoming              visible messages stitched to this one
//   GET    /v1/links/messages/:message_id/outgoing              visible messages this one is stitched to
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { MessageIdParam, PaginatedMessages } from '../messages/messages.schemas.js';
import type { LinkDirection } from './links-repository.js';
import { LinkListQuery, LinkParams, LinkResponse } from './links.schemas.js';
import { listLinkedMessages } from './list-linked-messages.js';
import { stitchMessages, unstitchMessages } from './manage-stitches.js';

const TAG = 'links';
const NOT_FOUND = 'Either message is missing or not visible to you (the same answer as a missing one).';

export function mountLinkRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'post',
    path: '/v1/links/messages/:message_id_from/:message_id_to',
    tag: TAG,
    summary: 'Stitch one message to another',
    description:
      'Draws a directional stitch from `message_id_from` to `message_id_to`, recorded with your uid and the time. ' +
      'Both messages must be visible to you. There is one stitch per (from, to, stitcher): stitching again ' +
      'changes nothing and answers the first stitch (its `created_at`). Others may stitch the same pair; each ' +
      'stitch is their own. A stitch never changes thread membership or who can see either message. ' +
      'Needs `messages.write`.',
    auth: 'required',
    params: LinkParams,
    response: LinkResponse,
    errors: {
      403: 'messages.write missing.',
      404: NOT_FOUND,
      422: 'Invalid ids, or `invalid_link` when both ids are the same message.',
    },
    handler: ({ caller, params }) =>
      stitchMessages(ctx, caller, params.message_id_from, params.message_id_to),
  });

  routes.add({
    method: 'delete',
    path: '/v1/links/messages/:message_id_from/:message_id_to',
    tag: TAG,
    summary: 'Remove a stitch',
    description:
      'Removes your own stitch from `message_id_from` to `message_id_to` and answers it with `linked: false`. ' +
      'A stitch drawn by someone else is theirs, with one exception: the author of the FROM message (or the ' +
      "author's manager) may remove stitches out of it, and then every stitch between the two messages, " +
      'whoever drew it, is removed (the answer shows your own when you had one, else the earliest). Both ' +
      'messages must be visible to you. Needs `messages.write`.',
    auth: 'required',
    params: LinkParams,
    response: LinkResponse,
    errors: {
      403: 'messages.write missing.',
      404: `${NOT_FOUND} Or \`link_not_found\`: there is no stitch between them that you may remove.`,
      422: 'Invalid ids, or `invalid_link` when both ids are the same message.',
    },
    handler: ({ caller, params }) =>
      unstitchMessages(ctx, caller, params.message_id_from, params.message_id_to),
  });

  const listRoute = (direction: LinkDirection, summary: string, what: string) =>
    routes.add({
      method: 'get',
      path: `/v1/links/messages/:message_id/${direction}`,
      tag: TAG,
      summary,
      description:
        `Paginated: ${what}, each once, ordered by their newest counted stitch first. By default only stitches ` +
        'you drew count; with `show_all_links=true` stitches drawn by anyone do. Messages you cannot see are ' +
        'never listed. `limit` 1–100, default 15.',
      auth: 'required',
      params: MessageIdParam,
      query: LinkListQuery,
      response: PaginatedMessages,
      errors: {
        404: 'The message is missing or not visible to you (the same answer).',
        422: 'Invalid id, or skip/limit/show_all_links out of range.',
      },
      handler: ({ caller, params, query }) =>
        listLinkedMessages(ctx, caller, params.message_id, direction, query),
    });
  listRoute(
    'incoming',
    'Messages stitched to this one',
    'the visible messages with a stitch to this message',
  );
  listRoute(
    'outgoing',
    'Messages this one is stitched to',
    'the visible messages this message has a stitch to',
  );
}
