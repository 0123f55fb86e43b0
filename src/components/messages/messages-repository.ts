// The only code that runs the messages' Cypher. Takes and returns plain objects.
import neo4j from 'neo4j-driver';
import { roundOf, type EventRows } from '../event-log/event-log-repository.js';
import type { SequencedRound } from '../event-log/event-log.js';
import { MAX_NAMED_VIEWERS } from '../../platform/http/view-cache.js';
import { isEntityNotFound, type Database, type Row, type Tx } from '../../platform/neo4j/database.js';
import { messagesOfHydrateAnswer, type HydrateAnswer, type HydratedRow } from './message-output.js';
import { PARTICIPATION_SLACK_MS } from './participation-slack.js';
import type { MessageOutput } from './messages.schemas.js';

export interface Viewer {
  /** null for an anonymous caller, who sees public messages only. */
  uid: string | null;
}

/** MessageOutputs for the ids the viewer may see, in the order of `ids`; invisible ones are left out. */
export async function hydrateMessages(
  source: Database | Tx,
  viewer: Viewer,
  ids: string[],
  publicUrl: string,
  options: { links?: boolean } = {},
): Promise<MessageOutput[]> {
  if (ids.length === 0) return [];
  const params = { viewer_uid: viewer.uid, ids };
  // Without links, recipients, replies, stitches, channels, attachments, is_saved and reactions come
  // back empty: only for answers narrowed to fields that do not show them (message-fields.ts).
  const query = options.links === false ? 'messages/hydrate-core' : 'messages/hydrate';
  // Inside a write transaction (to answer with what it just wrote) or on its own.
  const [answer] = 'read' in source ? await source.read(query, params) : await source.run(query, params);
  const byId = messagesOfHydrateAnswer(hydrateAnswerOf(answer), ids, publicUrl);
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The hydration in a record of hydrate.cypher, hydrate-core.cypher or a hydrateWith template. */
function hydrateAnswerOf(record: Row | undefined): HydrateAnswer {
  return {
    rows: (record?.rows as HydratedRow[] | undefined) ?? [],
    visibleLineage: (record?.visible_lineage as string[] | undefined) ?? [],
    visibleTops: (record?.visible_tops as [string, string][] | undefined) ?? [],
  };
}

/**
 * A view's query and the messages it found, hydrated in the same statement (a round trip less):
 * `template` is cypher/messages/hydrate-page.cypher for a page query, hydrate-walk.cypher for a
 * walk; the viewer is the view query's $viewer_uid. The view's record, and its hydrated messages by
 * id; null when the view answered no record (a walk from an origin the viewer may not see).
 */
export async function hydrateWith(
  db: Database,
  template: 'messages/hydrate-page' | 'messages/hydrate-walk',
  view: { name: string; params: Record<string, unknown> },
  publicUrl: string,
): Promise<{ record: Row; messages: Map<string, MessageOutput> } | null> {
  const [record] = await db.read(`${template}(${view.name})`, view.params);
  if (!record) return null;
  const requested = record.hydrated_ids as string[];
  return { record, messages: messagesOfHydrateAnswer(hydrateAnswerOf(record), requested, publicUrl) };
}

export interface ParentRef {
  id: string;
  root_id: string;
  author_uid: string;
  /** Its CC recipients: a reply with audience "parent" goes to them too. */
  cc_uids: string[];
  /** Its channels that the poster belongs to. */
  channel_ids: string[];
}

export interface PostRefs {
  parents: Map<string, ParentRef>;
  /** 'tag:<folded tag>' or 'uid:<uid>' → uid */
  users: Map<string, string>;
  channels: Map<string, { member: boolean }>;
  files: Set<string>;
}

/** In a post's write transaction, or in a read (typing, streams: `{ run: db.read }`). */
export async function resolvePostRefs(
  tx: Pick<Tx, 'run'>,
  viewerUid: string,
  wanted: { parent_ids: string[]; tags: string[]; uids: string[]; channel_ids: string[]; file_ids: string[] },
): Promise<PostRefs> {
  const [row] = await tx.run('messages/resolve-post-refs', { viewer_uid: viewerUid, ...wanted });
  const r = row as {
    parents: ParentRef[];
    users: { key: string; uid: string }[];
    channels: { id: string; member: boolean }[];
    files: string[];
  };
  return {
    parents: new Map(r.parents.map((p) => [p.id, p])),
    users: new Map(r.users.map((u) => [u.key, u.uid])),
    channels: new Map(r.channels.map((c) => [c.id, { member: c.member }])),
    files: new Set(r.files),
  };
}

export interface NewMessage {
  id: string;
  content: string;
  subject: string | null;
  public: boolean;
  created_at: string;
  parent_id: string | null;
  root_id: string;
  tags: string[];
  import_info_json: string | null;
  /** Set on the message a streamed reply posts: how it ended (MessageOutput.stream). */
  stream_json: string | null;
}

export interface NewMessageEdges {
  replies: { parent_id: string; child_id: string }[];
  receivers: { message_id: string; uid: string; public: boolean }[];
  inclusions: { message_id: string; channel_id: string }[];
  attachments: { message_id: string; file_id: string; position: number }[];
}

export class ParentVanished extends Error {}

/**
 * The channel members a non-public post reads with its write (writePost's `channelMembersLimit`):
 * one past the view cache's named viewers, enough for postViewers to tell a big audience.
 */
export const POST_CHANNEL_MEMBERS_READ = MAX_NAMED_VIEWERS + 1;

/** What writePost reads besides writing, and does at the end of its statement. */
export interface WritePostOptions {
  /** Members of the channels it writes into to read for the view cache, at most (none for 0). */
  channelMembersLimit: number;
  publicUrl: string;
  /** Events it numbers itself (a lone post, event-sequencer.ts), at most; 0 leaves them to a round. */
  roundLimit: number;
  /** Channels whose every member to read, for the delivery of its events (CommitNotices). */
  viewChannelIds: string[];
}

/** What writePost answers. */
export interface WrittenPost {
  /** The members of the channels it wrote into, at most `channelMembersLimit` (none for 0). */
  channelMemberUids: string[];
  /** Every member of each of `viewChannelIds`, by channel. */
  channelMembers: Map<string, string[]>;
  /** Its messages as their poster sees them, by id. */
  messages: Map<string, MessageOutput>;
  /** The round it numbered itself (when `roundLimit` > 0), to publish after the commit. */
  round: SequencedRound | null;
}

/**
 * Writes a post's messages, edges and events inside the caller's transaction, in one statement
 * (write-post.cypher, which also says in what order it takes locks), and reads them back for the
 * poster's answer in the same statement, with what `options` asks for.
 */
export async function writePost(
  tx: Tx,
  items: NewMessage[],
  edges: NewMessageEdges,
  events: EventRows,
  { channelMembersLimit, publicUrl, roundLimit, viewChannelIds }: WritePostOptions,
): Promise<WrittenPost> {
  const authorUid = events.actor_uid;
  const userEdges = [
    ...items.map((m) => ({ uid: authorUid, message_id: m.id, kind: 'sent', public: null })),
    ...edges.receivers.map((r) => ({
      uid: r.uid,
      message_id: r.message_id,
      kind: 'received',
      public: r.public,
    })),
  ].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  const newIds = new Set(items.map((m) => m.id));
  // Replies within the post adopt their root when written; one to an existing message adopts its
  // parent's root as it is under the lock.
  const external = edges.replies.find((r) => !newIds.has(r.parent_id));
  try {
    const [row] = await tx.run('messages/write-post', {
      ...events,
      items,
      user_edges: userEdges,
      replies: edges.replies,
      inclusions: edges.inclusions,
      attachments: edges.attachments,
      external_parent_id: external?.parent_id ?? null,
      message_ids: [...newIds],
      participation_slack_ms: neo4j.int(PARTICIPATION_SLACK_MS),
      channel_members_limit: neo4j.int(channelMembersLimit),
      view_channel_ids: viewChannelIds,
      // The answer's read (hydrated-message.cypher's parameters): the poster, and the messages.
      viewer_uid: authorUid,
      ids: [...newIds],
      // Its own round (fragments/number-round.cypher), when the sequencer says it may number.
      number_events: roundLimit > 0,
      round_limit: neo4j.int(roundLimit),
    });
    // A parent deleted between the checks and this write: abort, so nothing is half-written.
    if ((row?.replies as number) !== edges.replies.length) throw new ParentVanished();
    return {
      channelMemberUids: (row?.channel_member_uids as string[] | undefined) ?? [],
      channelMembers: new Map(
        ((row?.channel_members as { channel_id: string; members: string[] }[] | undefined) ?? []).map(
          (channel) => [channel.channel_id, channel.members],
        ),
      ),
      messages: messagesOfHydrateAnswer(
        hydrateAnswerOf({
          rows: row?.written,
          visible_lineage: row?.visible_lineage,
          visible_tops: row?.visible_tops,
        }),
        [...newIds],
        publicUrl,
      ),
      round: typeof row?.base === 'number' ? roundOf(row) : null,
    };
  } catch (error) {
    // Deleted while this statement waited for its lock.
    if (isEntityNotFound(error)) throw new ParentVanished();
    throw error;
  }
}

const DAY_MS = 24 * 3600 * 1000;

export async function findIdempotentAnswer(db: Database, key: string): Promise<string | null> {
  const rows = await db.read('messages/find-idempotent-answer', {
    key,
    since: new Date(Date.now() - DAY_MS).toISOString(),
  });
  return (rows[0]?.response as string | undefined) ?? null;
}

export async function saveIdempotentAnswer(tx: Tx, key: string, response: string): Promise<void> {
  await tx.run('messages/save-idempotent-answer', {
    key,
    response,
    now: new Date().toISOString(),
    since: new Date(Date.now() - DAY_MS).toISOString(),
  });
}

/**
 * Everyone who may see the messages a post wrote, none of them public: the author, the recipients
 * and the members of the channels they went into (the visibility rule's grounds), as writePost
 * read them with POST_CHANNEL_MEMBERS_READ. Null when they are more than MAX_NAMED_VIEWERS (a big
 * channel), which the view cache treats as everybody anyway.
 */
export function postViewers(
  authorUid: string,
  edges: NewMessageEdges,
  channelMemberUids: string[],
): Set<string> | null {
  const viewers = new Set([authorUid, ...edges.receivers.map((r) => r.uid), ...channelMemberUids]);
  return viewers.size > MAX_NAMED_VIEWERS ? null : viewers;
}

/** The (message, user) pairs of mentions where the user can see the message. */
export async function findMentioned(
  tx: Tx,
  pairs: { message_id: string; uid: string }[],
): Promise<{ message_id: string; uid: string }[]> {
  if (pairs.length === 0) return [];
  const rows = await tx.run('messages/find-mentioned', { pairs });
  return rows.map((row) => ({ message_id: row.message_id as string, uid: row.uid as string }));
}
