// Events as recipients see them: building what an event shows one user (with the visibility rule),
// and resolving whom a ping names. The only code that runs the events Cypher.
import type { Database, Tx } from '../../platform/neo4j/database.js';
import type { EventMessage } from './notification-event.js';

export interface PayloadRequest {
  key: number;
  uid: string;
  message_ids: string[];
  /** Whether the user's own messages are shown (a ping, an update), or left out (news of others). */
  include_own: boolean;
  /** Whether up to 10 visible ancestors of the first shown message come along. */
  with_context: boolean;
}

export interface BuiltPayload {
  key: number;
  messages: EventMessage[];
  context: EventMessage[];
}

/** Requests judged per statement at most (a statement's parameters stay a few hundred KB). */
const PAYLOADS_PER_STATEMENT = 2000;

/** Requests whose user can see none of the messages any more come back with no messages. */
export async function buildPayloads(db: Database, items: PayloadRequest[]): Promise<BuiltPayload[]> {
  const built: BuiltPayload[] = [];
  for (let start = 0; start < items.length; start += PAYLOADS_PER_STATEMENT) {
    const rows = await db.read('events/build-payloads', {
      items: items.slice(start, start + PAYLOADS_PER_STATEMENT),
    });
    for (const row of rows) {
      built.push({
        key: row.key as number,
        messages: row.messages as EventMessage[],
        context: row.context as EventMessage[],
      });
    }
  }
  return built;
}

export async function resolvePingRefs(
  tx: Tx,
  viewerUid: string,
  wanted: { message_id: string; tags: string[]; uids: string[] },
): Promise<{ visible: boolean; users: Map<string, string> }> {
  const [row] = await tx.run('events/resolve-ping-refs', { viewer_uid: viewerUid, ...wanted });
  const users = (row?.users ?? []) as { key: string; uid: string }[];
  return { visible: row?.visible === true, users: new Map(users.map((u) => [u.key, u.uid])) };
}

/** The subset of uids that can see the message. */
export async function findUsersWhoSee(tx: Tx, messageId: string, uids: string[]): Promise<string[]> {
  if (uids.length === 0) return [];
  const rows = await tx.run('events/find-visible-ping-targets', { message_id: messageId, uids });
  return rows.map((row) => row.uid as string);
}

/** The channels the user belongs to now. */
export async function listMemberships(db: Database, uid: string): Promise<string[]> {
  const rows = await db.read('events/list-memberships', { uid });
  return rows.map((row) => row.channel_id as string);
}

export interface ChannelViewNode {
  id: string;
  content: string;
  parent_id: string | null;
  author: { uid: string; user_tag: string };
  /** Every member of the channel can see it. */
  shared: boolean;
  /** When not shared: those of the asked uids who can see it. */
  viewers: ReadonlySet<string>;
}

export interface ChannelView {
  /** The channel's members now (the caller keeps the asked uids among them). */
  members: string[];
  nodes: Map<string, ChannelViewNode>;
  /** Ancestors of the first message: id → distance (1 = its parent). */
  ancestors: Map<string, number>;
}

/** The event's messages, parents and first message's ancestors, judged once for the channel. */
export async function buildChannelView(
  db: Database,
  channelId: string,
  messageIds: string[],
  uids: string[],
): Promise<ChannelView> {
  const rows = await db.read('events/build-channel-view', {
    channel_id: channelId,
    message_ids: messageIds,
    uids,
  });
  const first = rows[0];
  return {
    members: (first?.members as string[] | undefined) ?? [],
    nodes: new Map(
      rows.map((row) => [
        row.id as string,
        {
          id: row.id as string,
          content: row.content as string,
          parent_id: (row.parent_id as string | null) ?? null,
          author: row.author as { uid: string; user_tag: string },
          shared: row.shared === true,
          viewers: new Set(row.viewers as string[]),
        },
      ]),
    ),
    ancestors: new Map(
      ((first?.distances as { id: string; distance: number }[] | undefined) ?? []).map((a) => [
        a.id,
        a.distance,
      ]),
    ),
  };
}
