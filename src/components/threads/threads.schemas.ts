// Shapes of the read views (timeline, inbox, history, public, thread, conversation, traversal, tree
// ids): they validate REST queries and GraphQL arguments alike, and feed the OpenAPI document.
import { z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';
import { ChannelId } from '../channels/channels.schemas.js';
import { fieldsQuery } from '../messages/message-fields.js';
import { MessageOutput, QueryBoolean, pageQuery } from '../messages/messages.schemas.js';

/**
 * The most messages one traversal walks to in each direction (nearest levels first), and answers
 * in all (get_children included), so one call cannot load a whole store.
 */
export const MAX_TRAVERSAL_NODES = 2000;
/**
 * The most content characters one traversal answers (the origin always comes): with contents of up
 * to 65,536 characters, the node cap alone allowed answers of hundreds of megabytes.
 */
export const MAX_TRAVERSAL_CONTENT_CHARS = 1_000_000;

const ChannelFilter = ChannelId.optional().openapi({
  description:
    'Only messages included in this channel count, as if the store held nothing else. You must be a ' +
    'member (404 channel_not_found, 403 not_channel_member).',
});

export const TimelineQuery = z.object({ ...pageQuery(15), channel_id: ChannelFilter, fields: fieldsQuery() });
export type TimelineQuery = z.infer<typeof TimelineQuery>;

export const InboxQuery = z.object({
  ...pageQuery(15),
  channel_id: ChannelFilter,
  unread_only: QueryBoolean.default(false).openapi({
    type: 'boolean',
    default: false,
    description: 'Keep only threads where you still have an unread receivers edge (read_at null).',
  }),
  fields: fieldsQuery(),
});
export type InboxQuery = z.infer<typeof InboxQuery>;

export const HistoryQuery = z.object({ ...pageQuery(6), channel_id: ChannelFilter, fields: fieldsQuery() });
export type HistoryQuery = z.infer<typeof HistoryQuery>;

export const PublicQuery = z.object({ ...pageQuery(15), fields: fieldsQuery() });
export type PublicQuery = z.infer<typeof PublicQuery>;

export const ThreadMessagesQuery = z.object({ ...pageQuery(15), fields: fieldsQuery() });
export type ThreadMessagesQuery = z.infer<typeof ThreadMessagesQuery>;

export const ConversationQuery = z.object({ ...pageQuery(15), fields: fieldsQuery() });
export type ConversationQuery = z.infer<typeof ConversationQuery>;

const Depth = queryInteger({ min: 0, max: 100 }).default(2);

export const TraverseQuery = z.object({
  up_depth: Depth.openapi({ description: 'Hops above the origin, 0–100.' }),
  down_depth: Depth.openapi({ description: 'Hops below the origin, 0–100.' }),
  edge_type: z.enum(['replies', 'links']).default('replies').openapi({
    description: '`replies`: reply edges; `links`: stitches (upward = incoming, downward = outgoing).',
  }),
  get_replies: QueryBoolean.default(true).openapi({
    type: 'boolean',
    default: true,
    description: 'Give each message `replies: {count, ids}`, its visible reply children.',
  }),
  get_children: QueryBoolean.default(false).openapi({
    type: 'boolean',
    default: false,
    description:
      'Also return the one-hop children (by edge_type) of every returned message that are not already in ' +
      'the result, at their parent depth + 1, with their edges.',
  }),
  default_path_only: QueryBoolean.default(false).openapi({
    type: 'boolean',
    default: false,
    description:
      'Walk default edges only: an edge of `edge_type` from a message to the child its `default_outgoing` ' +
      "names. Downward: each message's default child, a single chain. Upward (incoming defaults): only " +
      'a parent whose default child is the message below it, so the walk stops at the first edge that ' +
      'is not its parent’s default; with `links` several messages may stitch to one and name it their ' +
      'default, and each such parent is followed. Messages you may not see end the walk as always.',
  }),
  // `depth` always comes; `replies` (with get_replies) only when asked for, once fields are chosen.
  fields: fieldsQuery(['depth', 'replies']),
});
export type TraverseQuery = z.infer<typeof TraverseQuery>;

export const ReplySummary = z
  .object({ count: z.number().int(), ids: z.array(z.string()) })
  .openapi('ReplySummary', { description: 'The visible reply children of a message, oldest first.' });

export const TraversedMessage = MessageOutput.extend({
  depth: z.number().int().openapi({ description: '0 for the origin, negative above it, positive below.' }),
  replies: ReplySummary.optional().openapi({ description: 'Present when get_replies is true.' }),
}).openapi('TraversedMessage');
export type TraversedMessage = z.infer<typeof TraversedMessage>;

/** A traversed message with `fields=`: `id`, `depth` and the asked fields only. */
export const SparseTraversedMessage = TraversedMessage.partial()
  .required({ id: true, depth: true })
  .openapi('SparseTraversedMessage', {
    description: 'A traversed message answered with `fields=`: `id`, `depth` and the asked fields only.',
  });

export const TraversalEdge = z
  .object({ from: z.string(), to: z.string(), type: z.enum(['reply', 'link']) })
  .openapi('TraversalEdge', { description: 'A reply (parent → child) or a stitch (from → to).' });
export type TraversalEdge = z.infer<typeof TraversalEdge>;

export const TraversalResponse = z
  .object({
    origin_id: z.string(),
    messages: z.array(z.union([TraversedMessage, SparseTraversedMessage])).openapi({
      description:
        'Whole messages with their depth (TraversedMessage); with `fields=`, each holds `id`, `depth` and ' +
        'the asked fields only (SparseTraversedMessage).',
    }),
    edges: z.array(TraversalEdge),
    truncated: z.boolean().openapi({
      description:
        `true when messages within the asked depths were left out: the answer holds at most ` +
        `${MAX_TRAVERSAL_NODES} messages (get_children included) whose contents total at most ` +
        `${MAX_TRAVERSAL_CONTENT_CHARS} characters (the origin always), the nearest first. Traverse again ` +
        'from a message near the edge of the answer to see further.',
    }),
  })
  .openapi('TraversalResponse');
export type TraversalResponse = z.infer<typeof TraversalResponse>;

export const TreeIdsResponse = z
  .object({
    root_id: z.string().openapi({
      description: 'The root this message shows you, as its MessageOutput.root_id (never a hidden message).',
    }),
    ids: z.array(z.string()).openapi({ description: 'Visible ids of the thread, oldest first.' }),
  })
  .openapi('TreeIdsResponse');
export type TreeIdsResponse = z.infer<typeof TreeIdsResponse>;

export const UnreadQuery = z.object({ ...pageQuery(15) });
export type UnreadQuery = z.infer<typeof UnreadQuery>;

export const UnreadThread = z
  .object({
    root_id: z.string().openapi({
      description: 'The root the newest of them shows you, as its MessageOutput.root_id.',
    }),
    unread_count: z
      .number()
      .int()
      .openapi({ description: 'Unread messages addressed to you in this thread.' }),
    latest_message_id: z.string().openapi({ description: 'The newest of them.' }),
    latest_at: z.string().openapi({ description: 'Its timestamp.' }),
  })
  .openapi('UnreadThread');

export const UnreadCountsResponse = z
  .object({
    total_messages: z
      .number()
      .int()
      .openapi({ description: 'Unread messages addressed to you, in all threads.' }),
    total_threads: z.number().int().openapi({ description: 'Threads holding at least one of them.' }),
    threads: z
      .array(UnreadThread)
      .openapi({ description: 'One page of those threads, newest unread message first.' }),
    skip: z.number().int(),
    limit: z.number().int(),
    has_more: z.boolean(),
  })
  .openapi('UnreadCountsResponse');
export type UnreadCountsResponse = z.infer<typeof UnreadCountsResponse>;

export const ThreadReadResponse = z
  .object({
    message_id: z.string(),
    marked_read: z
      .number()
      .int()
      .openapi({ description: 'How many unread messages addressed to you in that thread were marked read.' }),
  })
  .openapi('ThreadReadResponse');
export type ThreadReadResponse = z.infer<typeof ThreadReadResponse>;
