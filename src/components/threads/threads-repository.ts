// The only code that runs the read views' Cypher (cypher/threads/). Views answer one page of
// message ids (one more than asked, so the caller can tell has_more); turning ids into
// MessageOutputs is hydrateMessages' job, or, in the same statement, hydrateWith's (a page query
// is given as a ViewQuery for that).
import neo4j from 'neo4j-driver';
import type { Database, Row } from '../../platform/neo4j/database.js';
import { PARTICIPATION_SLACK_MS } from '../messages/participation-slack.js';

export interface PageWindow {
  skip: number;
  limit: number;
}

/** SKIP and LIMIT want Cypher integers; plain JS numbers travel as floats. */
export function windowParams(window: PageWindow) {
  return {
    skip: neo4j.int(window.skip),
    take: neo4j.int(window.limit + 1),
    cap: neo4j.int(window.skip + window.limit + 1),
    cap_less_one: neo4j.int(window.skip + window.limit),
  };
}

/** A view's query of cypher/threads/ and its parameters (a page query answers `id` rows). */
export interface ViewQuery {
  name: string;
  params: Record<string, unknown>;
}

/** The page's ids, in the view's order. */
export async function pageIds(db: Database, query: ViewQuery): Promise<string[]> {
  const rows = await db.read(query.name, query.params);
  return rows.map((row) => row.id as string);
}

const EPOCH = '1970-01-01T00:00:00.000Z';

/** The timeline, newest first; `since` keeps only messages created at or after it (the export). */
export function timelinePage(
  viewerUid: string,
  channelId: string | null,
  window: PageWindow,
  since: Date | null = null,
): ViewQuery {
  const params = { viewer_uid: viewerUid, since: since?.toISOString() ?? EPOCH, ...windowParams(window) };
  return channelId === null
    ? { name: 'threads/timeline', params }
    : { name: 'threads/timeline-in-channel', params: { ...params, channel_id: channelId } };
}

export function inboxPage(
  viewerUid: string,
  filter: { channelId: string | null; unreadOnly: boolean },
  window: PageWindow,
): ViewQuery {
  const params = { viewer_uid: viewerUid, unread_only: filter.unreadOnly, ...windowParams(window) };
  return filter.channelId === null
    ? { name: 'threads/inbox', params }
    : { name: 'threads/inbox-in-channel', params: { ...params, channel_id: filter.channelId } };
}

export function historyPage(viewerUid: string, channelId: string | null, window: PageWindow): ViewQuery {
  const params = { viewer_uid: viewerUid, ...windowParams(window) };
  return channelId === null
    ? { name: 'threads/history', params: { ...params, slack_ms: neo4j.int(PARTICIPATION_SLACK_MS) } }
    : { name: 'threads/history-in-channel', params: { ...params, channel_id: channelId } };
}

export function publicPage(viewerUid: string | null, window: PageWindow): ViewQuery {
  return { name: 'threads/public', params: { viewer_uid: viewerUid, ...windowParams(window) } };
}

/**
 * One page of the visible messages of the thread holding `originId`, oldest first; null when the
 * origin does not exist or the viewer may not see it.
 */
export async function threadPageIds(
  db: Database,
  viewerUid: string,
  originId: string,
  window: PageWindow,
): Promise<string[] | null> {
  const [row] = await db.read('threads/thread-page', {
    viewer_uid: viewerUid,
    message_id: originId,
    ...windowParams(window),
  });
  return row ? (row.ids as string[]) : null;
}

/**
 * Up to this many receivers edges, a conversation finds one direction's messages by walking the
 * recipient's edges (at most this many, whatever the author wrote); beyond, by reading the author's
 * messages newest first until the page is full (cypher/threads/conversation.cypher).
 */
export const CONVERSATION_EXPAND_MAX = 1000;

/** The messages between the viewer and `otherUid` (either one the author, the other a recipient), newest first. */
export function conversationPage(viewerUid: string, otherUid: string, window: PageWindow): ViewQuery {
  return {
    name: 'threads/conversation',
    params: {
      viewer_uid: viewerUid,
      other_uid: otherUid,
      expand_max: neo4j.int(CONVERSATION_EXPAND_MAX),
      ...windowParams(window),
    },
  };
}

export interface ThreadIds {
  /**
   * The root the message shows the viewer, as its MessageOutput.root_id (cypher/fragments/
   * shown-root.cypher): its own id when the viewer sees it as a root.
   */
  root_id: string;
  /** Visible ids of the thread, oldest first. */
  ids: string[];
}

/** The threads of the messages in `messageIds` the viewer may see, by message id. */
export async function findThreadIds(
  db: Database,
  viewerUid: string | null,
  messageIds: readonly string[],
): Promise<Map<string, ThreadIds>> {
  if (messageIds.length === 0) return new Map();
  const rows = await db.read('threads/tree-ids', { viewer_uid: viewerUid, ids: [...new Set(messageIds)] });
  // Messages of one thread share one ids array.
  return new Map(
    rows.flatMap((row) => {
      const ids = row.ids as string[];
      return (row.asked as [string, string][]).map(([id, rootId]) => [id, { root_id: rootId, ids }] as const);
    }),
  );
}

export interface TraversalOptions {
  upDepth: number;
  downDepth: number;
  edge: 'reply' | 'link';
  getChildren: boolean;
  defaultPathOnly: boolean;
  maxNodes: number;
  /** The most characters of content the returned messages hold together (the origin always comes). */
  maxChars: number;
}

export interface Walked {
  nodes: { id: string; depth: number }[];
  edges: { from: string; to: string }[];
  /** Some reached messages were left out by maxNodes or maxChars, or a walk stopped at its cap. */
  truncated: boolean;
}

/** The walk from an origin (cypher/threads/traverse.cypher): no row when the viewer may not see it. */
export function walkQuery(viewerUid: string, originId: string, options: TraversalOptions): ViewQuery {
  return {
    name: 'threads/traverse',
    params: {
      viewer_uid: viewerUid,
      origin_id: originId,
      up_depth: neo4j.int(options.upDepth),
      down_depth: neo4j.int(options.downDepth),
      edge: options.edge === 'reply' ? 'REPLY' : 'STITCH',
      get_children: options.getChildren,
      default_path_only: options.defaultPathOnly,
      max_nodes: neo4j.int(options.maxNodes),
      max_chars: neo4j.int(options.maxChars),
    },
  };
}

/** The walk a row of walkQuery answered. */
export function walkedOf(row: Row): Walked {
  // Positions, not maps: cheaper to decode (cypher/fragments/hydrated-message.cypher says why).
  return {
    nodes: (row.nodes as [string, number][]).map(([id, depth]) => ({ id, depth })),
    edges: (row.edges as [string, string][]).map(([from, to]) => ({ from, to })),
    truncated: row.truncated as boolean,
  };
}

/** The walk of a walkQuery, or null when the viewer may not see its origin (or it does not exist). */
export async function walkFrom(db: Database, walk: ViewQuery): Promise<Walked | null> {
  const [row] = await db.read(walk.name, walk.params);
  return row ? walkedOf(row) : null;
}

export interface UnreadThread {
  /** The root its newest unread message shows the viewer (cypher/fragments/shown-root.cypher). */
  root_id: string;
  unread_count: number;
  latest_message_id: string;
  latest_at: string;
}

export interface UnreadCounts {
  total_messages: number;
  total_threads: number;
  /** One page of threads with unread messages, newest unread message first. */
  threads: UnreadThread[];
}

/** The viewer's unread messages: totals, and one page of threads (cypher/threads/unread-counts.cypher). */
export async function unreadCounts(
  db: Database,
  viewerUid: string,
  window: PageWindow,
): Promise<UnreadCounts> {
  const [row] = await db.read('threads/unread-counts', {
    viewer_uid: viewerUid,
    skip: neo4j.int(window.skip),
    limit: neo4j.int(window.limit),
  });
  return {
    total_messages: (row?.total_messages as number | undefined) ?? 0,
    total_threads: (row?.total_threads as number | undefined) ?? 0,
    threads: (row?.entries as UnreadThread[] | undefined) ?? [],
  };
}

/**
 * Marks read the viewer's unread receivers edges in the thread holding `messageId`; null when the
 * viewer may not see that message (or it does not exist).
 */
export async function markThreadRead(
  db: Database,
  viewerUid: string,
  messageId: string,
): Promise<number | null> {
  const [row] = await db.write('threads/mark-thread-read', {
    viewer_uid: viewerUid,
    id: messageId,
    now: new Date().toISOString(),
  });
  return row ? (row.marked as number) : null;
}
