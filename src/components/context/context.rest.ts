// /v1 conversation context:
//   GET /v1/messages/:message_id/context     the conversation before a message, as a chat-model prompt
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import { readMessageContext } from './read-context.js';
import * as schemas from './context.schemas.js';

export function mountContextRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/messages/:message_id/context',
    tag: 'views',
    summary: 'Conversation context of a message',
    description:
      'What a bot needs to answer `message_id` (any message you may see), oldest first, ready to become ' +
      'a chat-model prompt: first your **starting context** when you are a bot with a ' +
      '`context_origin_id` (that root message, then its chain of `default_outgoing` children, each only ' +
      'while you may see it: the chain ends at the first you may not see), then the **thread**: the ' +
      'reply ancestors of the message from the thread root down (along `parent_id`), then the message ' +
      'itself, always the last entry. An ancestor you may not see ends the walk up: it and everything ' +
      'above it are left out, exactly as if they did not exist (as in traverse-from). Ancestors that ' +
      'the starting context already holds are not repeated. Each entry has `role` `assistant` when you ' +
      'wrote it and `user` otherwise, and `part` telling which of the two it belongs to. ' +
      `Bounded by \`limit\` entries (default ${schemas.DEFAULT_CONTEXT_ENTRIES}, at most ` +
      `${schemas.MAX_CONTEXT_ENTRIES}) and \`max_chars\` content characters (default ` +
      `${schemas.DEFAULT_CONTEXT_CHARS}, at most ${schemas.MAX_CONTEXT_CHARS}): the message always ` +
      'comes; then as much of the starting context as fits, from its origin on; then as many ancestors ' +
      'as fit, nearest first, so the oldest ancestors are cut first. Neither part skips an entry to ' +
      'fit a later one. `truncated` is true when anything was cut. Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    params: MessageIdParam,
    query: schemas.ContextQuery,
    response: schemas.MessageContext,
    errors: {
      403: 'messages.read missing.',
      404: 'The message is not found, or not visible to you (the same answer).',
      422: '`validation_error`: a malformed message_id, or limit or max_chars out of range.',
    },
    handler: ({ caller, params, query }) => readMessageContext(ctx, caller, params.message_id, query),
  });
}
