// /v1 read views of the message graph:
//   GET /v1/messages/timeline                       every visible message, newest first
//   GET /v1/messages/inbox                          newest visible message per thread you receive or sent to others
//   GET /v1/messages/history                        one entry per thread you wrote in, by your latest activity
//   GET /v1/messages/public                         newest public message per thread (no sign-in needed)
//   GET /v1/messages/:message_id/thread             visible messages of a message's thread, oldest first
//   GET /v1/messages/conversation/:uid              messages between you and one user, newest first
//   GET /v1/messages/traverse-from/:message_id      ancestors and descendants of a message within depths
//   GET /v1/messages/:message_id/tree-ids           visible ids of the thread holding a message
//   GET /v1/messages/unread                         unread messages addressed to you, in total and per thread
//   POST /v1/messages/:message_id/thread/read       mark read everything addressed to you in a message's thread
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { MessageIdParam, PaginatedMessages } from '../messages/messages.schemas.js';
import { UidParam } from '../users/users.schemas.js';
import { countUnread } from './count-unread.js';
import { listConversation } from './list-conversation.js';
import { listHistory } from './list-history.js';
import { listInbox } from './list-inbox.js';
import { listPublicMessages } from './list-public-messages.js';
import { listThreadMessages } from './list-thread-messages.js';
import { listTimeline } from './list-timeline.js';
import { markThreadRead } from './mark-thread-read.js';
import { readTreeIds } from './read-tree-ids.js';
import { traverseMessages } from './traverse-messages.js';
import * as schemas from './threads.schemas.js';

const TAG = 'views';

const CHANNEL_ERRORS = {
  403: 'messages.read missing, or you are not a member of channel_id.',
  404: 'channel_id names no channel.',
} as const;

export function mountThreadRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/messages/timeline',
    tag: TAG,
    summary: 'Timeline',
    description:
      'Every message you may see, whatever its place in a thread, newest first (ties broken by id): ' +
      'messages you wrote, messages you are a recipient of (CC or BCC), messages in a channel you belong ' +
      'to, and public messages. With `channel_id`, only the messages included in that channel. ' +
      'Paginated (default limit 15); `has_more` tells whether a next page exists. Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    query: schemas.TimelineQuery,
    response: PaginatedMessages,
    errors: CHANNEL_ERRORS,
    handler: ({ caller, query }) => listTimeline(ctx, caller, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/inbox',
    tag: TAG,
    summary: 'Inbox',
    description:
      'One entry per thread (messages sharing a root) in which you are a recipient of some message, or ' +
      'in which you wrote a message that has a recipient other than you. The entry is the newest message ' +
      'of that thread you may see (which may be newer than the message that put the thread in your ' +
      'inbox); entries newest first. `unread_only=true` keeps the threads where a receivers edge of yours ' +
      'on someone else’s message is still unread (`read_at` null): your own messages are never unread, even ' +
      'addressed to yourself, and threads you are only in as a sender drop out. With `channel_id`, ' +
      'only messages included in that channel count, both for choosing threads and for their entries. ' +
      'Paginated (default limit 15). Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    query: schemas.InboxQuery,
    response: PaginatedMessages,
    errors: CHANNEL_ERRORS,
    handler: ({ caller, query }) => listInbox(ctx, caller, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/unread',
    tag: TAG,
    summary: 'Unread counts',
    description:
      'How many messages addressed to you (you are a CC or BCC recipient) you have not read yet: in ' +
      'total, how many threads hold them, and one page of those threads, newest unread message first, ' +
      'each with its count and its newest unread message. Read state lives on your receivers edges ' +
      '(`POST /v1/messages/{message_id}/read`, `POST /v1/messages/{message_id}/thread/read`), so your own ' +
      'messages (even addressed to yourself) and messages you see only through a channel or because they are ' +
      'public are never unread. ' +
      'The cost grows with what is unread, not with your history. Paginated over threads (default ' +
      'limit 15). Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    query: schemas.UnreadQuery,
    response: schemas.UnreadCountsResponse,
    errors: { 403: 'messages.read missing.' },
    handler: ({ caller, query }) => countUnread(ctx, caller, query),
  });

  routes.add({
    method: 'post',
    path: '/v1/messages/:message_id/thread/read',
    tag: TAG,
    summary: 'Mark a whole thread read',
    description:
      'Marks read every message of the thread holding `message_id` (the same root) that is addressed to you ' +
      'and still unread, in one call; each keeps the time it was first read. Messages addressed only to ' +
      'others are not touched. Answers how many were marked. Needs `messages.write` (it updates read state).',
    auth: 'required',
    params: MessageIdParam,
    response: schemas.ThreadReadResponse,
    errors: { 403: 'messages.write missing.', 404: 'No message with this id that you may see.' },
    handler: ({ caller, params }) => markThreadRead(ctx, caller, params.message_id),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/history',
    tag: TAG,
    summary: 'History',
    description:
      'One entry per thread in which you wrote at least one message (in any branch): the thread root when ' +
      'you may see it, otherwise your earliest message in that thread. Entries are ordered by your latest ' +
      'message in each thread, newest first. With `channel_id`, only messages included in that channel ' +
      'count (your messages, and the root as an entry). Paginated (default limit 6). Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    query: schemas.HistoryQuery,
    response: PaginatedMessages,
    errors: CHANNEL_ERRORS,
    handler: ({ caller, query }) => listHistory(ctx, caller, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/public',
    tag: TAG,
    summary: 'Public messages',
    description:
      'For each thread holding a public message, its newest public message; newest first. No ' +
      'authentication needed (credentials that are sent must be valid). A signed-in caller needs ' +
      '`messages.read` (403 otherwise, as in search and GraphQL) and gets the messages as they see them ' +
      '(their BCC entries, channels, saved state). Paginated (default limit 15).',
    auth: 'optional',
    query: schemas.PublicQuery,
    response: PaginatedMessages,
    errors: { 403: 'A signed-in caller lacks messages.read.' },
    handler: ({ caller, query }) => listPublicMessages(ctx, caller, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/:message_id/thread',
    tag: TAG,
    summary: 'Thread',
    description:
      'The messages you may see of the thread (messages sharing a root) that holds `message_id`, which ' +
      'may be any message of it, flat and oldest first (ties broken by id): a chat view of a long ' +
      'thread, whatever its branches. Messages you may not see are left out and not counted. Stitches ' +
      'do not change thread membership. Paginated (default limit 15); `has_more` tells whether a next ' +
      'page exists. Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    params: MessageIdParam,
    query: schemas.ThreadMessagesQuery,
    response: PaginatedMessages,
    errors: {
      403: 'messages.read missing.',
      404: 'The message is not found, or not visible to you (the same answer).',
    },
    handler: ({ caller, params, query }) => listThreadMessages(ctx, caller, params.message_id, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/conversation/:uid',
    tag: TAG,
    summary: 'Conversation with a user',
    description:
      'The messages between you and the user `uid`, across threads: those you wrote with them as a ' +
      'recipient (CC or BCC), and those they wrote with you as a recipient (CC or BCC). Messages with ' +
      'other people only, or in a shared channel without a receivers edge, are not part of it. Newest ' +
      'first (ties broken by id). Paginated (default limit 15); `has_more` tells whether a next page ' +
      'exists. Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    params: UidParam,
    query: schemas.ConversationQuery,
    response: PaginatedMessages,
    errors: {
      403: 'messages.read missing.',
      404: '`user_not_found`: no user has this uid.',
    },
    handler: ({ caller, params, query }) => listConversation(ctx, caller, params.uid, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/traverse-from/:message_id',
    tag: TAG,
    summary: 'Traverse from a message',
    description:
      'The origin (depth 0) with its ancestors (negative depths) and descendants (positive depths) within ' +
      '`up_depth` and `down_depth` hops along reply edges (`edge_type=replies`: up to the reply parent, ' +
      'down to reply children) or stitches (`edge_type=links`: up along incoming stitches, down along ' +
      'outgoing ones). A walk never passes through a message you may not see: an invisible ancestor ends ' +
      'the upward walk and an invisible child prunes its subtree. Each message appears once, at its ' +
      'nearest depth (a stitch cycle reaching it both ways keeps the downward depth on a tie). ' +
      '`default_path_only` walks default edges only (an edge of `edge_type` from a message to the child ' +
      'its `default_outgoing` names, reply or stitch child): downward the single chain of default ' +
      'children; upward the incoming defaults, that is only a parent whose `default_outgoing` is the ' +
      'message below it, so the walk stops at the first ancestor edge that is not a default one (with ' +
      '`links`, every message that stitches to the one below and names it as its default). The answer ' +
      'is then the messages whose default chain leads to the origin, the origin, and its own default ' +
      'chain. (The interface specification lists incoming defaults as not implemented and leaves upward ' +
      'unchanged; Skein follows them upward too. Without `default_path_only` nothing changes.) ' +
      '`get_children` adds the one-hop children of every returned message not yet returned. ' +
      '`get_replies` adds `replies: {count, ids}` (visible reply children) to each message. `edges` are ' +
      `the edges of the chosen type between returned messages. Each direction walks at most ` +
      `${schemas.MAX_TRAVERSAL_NODES} messages, nearest levels first, and the answer holds at most ` +
      `${schemas.MAX_TRAVERSAL_NODES} messages in all (\`get_children\` extras included) whose contents ` +
      `total at most ${schemas.MAX_TRAVERSAL_CONTENT_CHARS} characters (the origin always comes): the ` +
      'nearest are kept (by |depth|, downward first on a tie) and `truncated` is true when any message ' +
      'within the asked depths was left out. Messages are ordered by depth, then time. Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    params: MessageIdParam,
    query: schemas.TraverseQuery,
    response: schemas.TraversalResponse,
    errors: {
      403: 'messages.read missing.',
      404: 'The origin is not found, or not visible to you (the same answer).',
    },
    handler: ({ caller, params, query }) => traverseMessages(ctx, caller, params.message_id, query),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/:message_id/tree-ids',
    tag: TAG,
    summary: 'Ids of the thread',
    description:
      'The ids of every message you may see in the thread (same root) that holds this message, oldest ' +
      'first. `root_id` is the root this message shows you (its MessageOutput.root_id). Stitches do not ' +
      'change thread membership. Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    params: MessageIdParam,
    response: schemas.TreeIdsResponse,
    errors: {
      403: 'messages.read missing.',
      404: 'The message is not found, or not visible to you (the same answer).',
    },
    handler: ({ caller, params }) => readTreeIds(ctx, caller, params.message_id),
  });
}
